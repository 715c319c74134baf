/** Migration 026 (diff comments, issue 33) on a database that already has tasks: they keep their rows, comments start empty. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-026-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 026: diff comments', () => {
  it('brings a database with tasks up to date: tasks keep their rows, a comment holds only a valid range and state', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '026-diff-comments')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Search timeout', '', 'in_progress', 'x', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT title FROM tasks').pluck().all()).toEqual(['Search timeout'])
    expect(db.prepare('SELECT count(*) FROM diff_comments').pluck().get()).toBe(0)
    const insert = db.prepare(
      `INSERT INTO diff_comments (task_id, path, start_line, end_line, side, commit_sha, quoted, body, state, created_at)
       VALUES (1, 'a.js', ?, ?, ?, 'c0ffee', '', 'b', ?, 'x')`,
    )
    insert.run(3, 5, 'new', 'draft')
    expect(() => insert.run(5, 3, 'new', 'draft')).toThrow(/CHECK/)
    expect(() => insert.run(0, 3, 'new', 'draft')).toThrow(/CHECK/)
    expect(() => insert.run(1, 1, 'left', 'draft')).toThrow(/CHECK/)
    expect(() => insert.run(1, 1, 'new', 'done')).toThrow(/CHECK/)
    expect(() => db.prepare('UPDATE diff_comments SET task_id = 9').run()).toThrow(/FOREIGN KEY/)
    db.close()
  })
})
