/** Migration 028 (several attempts, issue 33) on a database that already has tasks: they are nobody's attempts. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-028-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 028: attempts', () => {
  it('brings a database with tasks up to date: they keep their rows, attempt_of and picked_attempt start empty and name tasks', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '028-attempts')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Search timeout', '', 'todo', 'x', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT title, attempt_of, picked_attempt FROM tasks').all()).toEqual([
      { title: 'Search timeout', attempt_of: null, picked_attempt: null },
    ])
    db.exec(
      "INSERT INTO tasks (id, title, spec, status, created_at, updated_at, attempt_of) VALUES (2, 'Search timeout', '', 'todo', 'x', 'x', 1)",
    )
    expect(db.prepare('SELECT id FROM tasks WHERE attempt_of = 1').pluck().all()).toEqual([2])
    expect(() => db.prepare('UPDATE tasks SET attempt_of = 9 WHERE id = 2').run()).toThrow(/FOREIGN KEY/)
    expect(() => db.prepare('UPDATE tasks SET picked_attempt = 9 WHERE id = 1').run()).toThrow(/FOREIGN KEY/)
    db.close()
  })
})
