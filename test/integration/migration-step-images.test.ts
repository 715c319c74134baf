/** Migration 035 (images in prompts, issue 35) on a database that already has steps: they keep their rows, with none. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-035-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migration 035: step images', () => {
  it('brings a database with steps up to date: no step has images; an image names a step and goes with it', () => {
    const file = join(dir, 'w.sqlite')
    const at = migrations.findIndex((m) => m.name === '035-step-images')
    expect(at).toBeGreaterThan(0)
    const old = new Database(file)
    migrate(old, migrations.slice(0, at))
    old.exec(
      "INSERT INTO members (id, name, role, authority, created_at, updated_at) VALUES (1, 'Ivy', 'implementer', 'proposer', 'x', 'x');" +
        "INSERT INTO steps (id, member_id, turn_id, kind, status, text, started_at) VALUES (1, 1, NULL, 'user', 'queued', 'Look', 'x')",
    )
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT text, images FROM steps').all()).toEqual([{ text: 'Look', images: 0 }])
    const insert = db.prepare('INSERT INTO step_images (step_id, idx, media_type, data) VALUES (?, ?, ?, ?)')
    insert.run(1, 0, 'image/png', Buffer.from([1, 2]))
    expect(() => insert.run(9, 0, 'image/png', Buffer.from([1]))).toThrow(/FOREIGN KEY/)
    expect(() => insert.run(1, 1, 'image/bmp', Buffer.from([1]))).toThrow(/CHECK/)
    db.prepare('DELETE FROM steps WHERE id = 1').run()
    expect(db.prepare('SELECT count(*) AS n FROM step_images').get()).toEqual({ n: 0 })
    db.close()
  })
})
