/** Migration 031 (undo a turn, issue 35) on a database that already has steps: they keep their rows, with no checkpoint. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-031-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 031: turn undo', () => {
  it('brings a database with steps up to date: no step has a checkpoint or is undone; undone commits name a task and a turn', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '031-turn-undo')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO members (id, name, role, authority, created_at, updated_at) VALUES (1, 'Ivy', 'implementer', 'proposer', 'x', 'x');" +
        "INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Timeout', '', 'in_progress', 'x', 'x');" +
        "INSERT INTO steps (id, member_id, turn_id, kind, status, text, started_at) VALUES (1, 1, 1, 'user', 'done', 'Implement T-1', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT text, checkpoint, undone, undone_told FROM steps').all()).toEqual([
      { text: 'Implement T-1', checkpoint: null, undone: null, undone_told: null },
    ])
    const insert = db.prepare('INSERT INTO undone_commits (task_id, commit_sha, turn_id) VALUES (?, ?, ?)')
    insert.run(1, 'a'.repeat(40), 1)
    expect(() => insert.run(1, 'a'.repeat(40), 1)).toThrow(/UNIQUE|PRIMARY KEY/)
    expect(() => insert.run(9, 'b'.repeat(40), 1)).toThrow(/FOREIGN KEY/)
    expect(() => insert.run(1, 'c'.repeat(40), 9)).toThrow(/FOREIGN KEY/)
    db.close()
  })
})
