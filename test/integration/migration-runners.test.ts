/** Migration 036 (where a member runs, issue 36) on a database that already has members. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-036-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 036: a runner per member', () => {
  it('brings a database with members up to date: each keeps its row and runs on the workspace default (NULL)', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '036-runners')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO members (id, name, role, authority, created_at, updated_at) VALUES (1, 'Ivy', 'implementer', 'proposer', 'x', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT name, runner FROM members').all()).toEqual([{ name: 'Ivy', runner: null }])
    db.prepare('UPDATE members SET runner = ? WHERE id = 1').run('{"kind":"ssh","host":"runner1"}')
    // What is not JSON is refused by the table itself, whatever code writes it.
    expect(() => db.prepare('UPDATE members SET runner = ? WHERE id = 1').run('runner1')).toThrow(/CHECK/)
    expect(db.prepare('SELECT runner FROM members').get()).toEqual({ runner: '{"kind":"ssh","host":"runner1"}' })
    db.close()
  })
})
