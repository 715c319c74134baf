/** Migration 029 (a plan before code, issue 33) on a database that already has tasks: they keep their rows, not plan first. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-029-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 029: task plans', () => {
  it('brings a database with tasks up to date: tasks keep their rows and are not plan first; a plan holds only a valid state', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '029-task-plans')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Search timeout', '', 'in_progress', 'x', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT title, plan_first FROM tasks').all()).toEqual([
      { title: 'Search timeout', plan_first: 0 },
    ])
    expect(db.prepare('SELECT count(*) FROM task_plans').pluck().get()).toBe(0)
    const insert = db.prepare(
      `INSERT INTO task_plans (task_id, n, body, state, submitted_at, rejected_to) VALUES (1, ?, ?, ?, 'x', ?)`,
    )
    insert.run(1, '1. do it', 'pending', null)
    expect(() => insert.run(1, 'again', 'pending', null)).toThrow(/UNIQUE/)
    expect(() => insert.run(2, '', 'pending', null)).toThrow(/CHECK/)
    expect(() => insert.run(0, 'x', 'pending', null)).toThrow(/CHECK/)
    expect(() => insert.run(2, 'x', 'waiting', null)).toThrow(/CHECK/)
    expect(() => insert.run(2, 'x', 'rejected', 'done')).toThrow(/CHECK/)
    expect(() => db.prepare('UPDATE tasks SET plan_first = 2').run()).toThrow(/CHECK/)
    expect(() => db.prepare('UPDATE task_plans SET task_id = 9').run()).toThrow(/FOREIGN KEY/)
    db.close()
  })
})
