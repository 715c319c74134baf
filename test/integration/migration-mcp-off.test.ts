/** Migration 033 (the repository's MCP servers per member, issue 35) on a database that already has members. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-033-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 033: MCP servers off per member', () => {
  it('brings a database with members up to date: each keeps its row and gets every server (none off)', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '033-mcp-off')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO members (id, name, role, authority, created_at, updated_at) VALUES (1, 'Ivy', 'implementer', 'proposer', 'x', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT name, mcp_off FROM members').all()).toEqual([{ name: 'Ivy', mcp_off: '[]' }])
    db.close()
  })
})
