import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import { makeCore } from '../fixtures/core'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('migrations', () => {
  it('opens with WAL, foreign keys and STRICT tables at the latest version', () => {
    const db = openDatabase(join(dir, 'w.sqlite'))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length)
    // The search indexes (010, 022) are FTS5 virtual tables with shadow tables of FTS5's own making: not STRICT by design.
    const sql = db
      .prepare(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name NOT GLOB '*_fts' AND name NOT GLOB '*_fts_*'",
      )
      .pluck()
      .all() as string[]
    expect(sql.every((s) => /STRICT/.test(s))).toBe(true)
    db.close()
  })

  it('brings a v1 database with rows up to date without losing them (002: sessions)', () => {
    const file = join(dir, 'old.sqlite')
    const v1 = openDatabase(file, { migrations: migrations.slice(0, 1) })
    v1.prepare(
      "INSERT INTO members (name, role, authority, created_at, updated_at) VALUES ('Ann', 'lead', 'decider', 'x', 'x')",
    ).run()
    v1.prepare(
      "INSERT INTO decisions (title, statement, status, version, fingerprint, created_at, updated_at) VALUES ('API', 'REST', 'accepted', 1, 'fp', 'x', 'x')",
    ).run()
    expect(v1.pragma('user_version', { simple: true })).toBe(1)
    v1.close()
    const db = openDatabase(file, { migrations: migrations.slice(0, 2) })
    expect(db.pragma('user_version', { simple: true })).toBe(2)
    expect(db.prepare('SELECT name, planning_interval FROM members').get()).toEqual({
      name: 'Ann',
      planning_interval: 0,
    })
    expect(db.prepare('SELECT statement FROM decisions').pluck().get()).toBe('REST')
    db.prepare(
      "INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, 'user', 'queued', 'hi', 'x')",
    ).run()
    db.close()
  })

  it('brings a v2 database with a session up to date (003: trust): members keep their rows, network is off, steps carry no policy', () => {
    const file = join(dir, 'v2.sqlite')
    const v2 = openDatabase(file, { migrations: migrations.slice(0, 2) })
    v2.prepare(
      "INSERT INTO members (name, role, authority, approval, created_at, updated_at) VALUES ('Ann', 'lead', 'decider', 'auto', 'x', 'x')",
    ).run()
    v2.prepare(
      "INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, 'user', 'done', 'hi', 'x')",
    ).run()
    v2.close()
    const db = openDatabase(file, { migrations: migrations.slice(0, 3) })
    expect(db.pragma('user_version', { simple: true })).toBe(3)
    expect(db.prepare('SELECT name, approval, network, session_start FROM members').get()).toEqual({
      name: 'Ann',
      approval: 'auto',
      network: 0,
      session_start: 0,
    })
    expect(db.prepare('SELECT text, approval FROM steps').get()).toEqual({ text: 'hi', approval: null })
    expect(() => db.prepare("UPDATE steps SET approval = 'sometimes'").run()).toThrow(/CHECK/)
    db.prepare("INSERT INTO command_processes (step_id, pid, pgid, started_at) VALUES (1, 42, 42, 'x')").run()
    db.close()
  })

  it('brings a v3 database up to date (004, 005: agents, worktrees): tasks keep their rows and get no branch', () => {
    const file = join(dir, 'v3.sqlite')
    const v3 = openDatabase(file, { migrations: migrations.slice(0, 3) })
    v3.prepare(
      "INSERT INTO tasks (title, spec, acceptance_criteria, status, required_reports, created_at, updated_at) VALUES ('Build', '', '', 'todo', '[]', 'x', 'x')",
    ).run()
    v3.close()
    const db = openDatabase(file)
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length)
    expect(db.prepare('SELECT title FROM tasks').pluck().get()).toBe('Build')
    expect(db.prepare('SELECT count(*) FROM task_branches').pluck().get()).toBe(0)
    db.prepare(
      "INSERT INTO task_branches (task_id, branch, base_commit, head, created_at) VALUES (1, 'concord/T-1', 'a', 'a', 'x')",
    ).run()
    expect(() =>
      db
        .prepare(
          "INSERT INTO task_branches (task_id, branch, base_commit, head, created_at) VALUES (1, 'concord/T-1b', 'a', 'a', 'x')",
        )
        .run(),
    ).toThrow(/UNIQUE|PRIMARY/)
    db.close()
  })

  it('brings a database with follow-ups up to date (019): each is recorded, its merged task gets back the content it was merged on', () => {
    const file = join(dir, 'before-020.sqlite')
    const old = openDatabase(file, {
      migrations: migrations.slice(
        0,
        migrations.findIndex((m) => m.name === '019-follow-ups'),
      ),
    })
    old.pragma('foreign_keys = OFF')
    old
      .prepare(
        `INSERT INTO decisions (id, title, statement, status, version, fingerprint, created_at, updated_at)
         VALUES (1, 'Timeout', '15 s', 'accepted', 3, 'f3', 'x', 'x')`,
      )
      .run()
    old
      .prepare(
        `INSERT INTO decision_revisions (decision_id, version, title, statement, rationale, status, content_hash, fingerprint, created_at)
         VALUES (1, 1, 'Timeout', '5 s', '', 'accepted', 'h1', 'f1', 'x'), (1, 2, 'Timeout', '10 s', '', 'accepted', 'h2', 'f2', 'x'),
                (1, 3, 'Timeout', '15 s', '', 'accepted', 'h3', 'f3', 'x')`,
      )
      .run()
    old
      .prepare(
        `INSERT INTO tasks (id, title, status, created_at, updated_at) VALUES
         (1, 'merged', 'accepted', 'x', 'x'), (2, 'follow-up v2', 'todo', 'x', 'x'), (3, 'follow-up v3', 'todo', 'x', 'x'), (4, 'other', 'todo', 'x', 'x')`,
      )
      .run()
    // Before 020 each follow-up re-pinned its merged task: T-1 is on v3 here, though it was merged on v1.
    old
      .prepare(
        `INSERT INTO task_links (decision_id, task_id, pinned_version, pinned_fingerprint) VALUES
         (1, 1, 3, 'f3'), (1, 2, 3, 'f3'), (1, 3, 3, 'f3'), (1, 4, 2, 'f2')`,
      )
      .run()
    const created = old.prepare("INSERT INTO events (type, payload, created_at) VALUES ('task.created', ?, 'x')")
    created.run(JSON.stringify({ taskId: 2, followUpOf: 1, decisionId: 1, version: 2 }))
    created.run(JSON.stringify({ taskId: 4 }))
    created.run(JSON.stringify({ taskId: 3, followUpOf: 1, decisionId: 1, version: 3 }))
    created.run(JSON.stringify({ taskId: 9, followUpOf: 1, decisionId: 1, version: 4 }))
    old.close()
    const db = openDatabase(file)
    expect(db.prepare('SELECT * FROM task_follow_ups ORDER BY task_id').all()).toEqual([
      { task_id: 2, of_task_id: 1, decision_id: 1 },
      { task_id: 3, of_task_id: 1, decision_id: 1 },
    ])
    expect(
      db.prepare('SELECT task_id, pinned_version, pinned_fingerprint FROM task_links ORDER BY task_id').all(),
    ).toEqual([
      { task_id: 1, pinned_version: 1, pinned_fingerprint: 'f1' },
      { task_id: 2, pinned_version: 3, pinned_fingerprint: 'f3' },
      { task_id: 3, pinned_version: 3, pinned_fingerprint: 'f3' },
      { task_id: 4, pinned_version: 2, pinned_fingerprint: 'f2' },
    ])
    db.close()
  })

  it('brings a database with members up to date (022): each keeps reading its own key (api_key_ref NULL)', () => {
    const at = migrations.findIndex((m) => m.name === '022-key-ref')
    const file = join(dir, 'before-024.sqlite')
    const old = openDatabase(file, { migrations: migrations.slice(0, at) })
    old
      .prepare(
        "INSERT INTO members (name, role, authority, provider_kind, provider_model, created_at, updated_at) VALUES ('Ann', 'lead', 'decider', 'openai', 'gpt', 'x', 'x')",
      )
      .run()
    old.close()
    const db = openDatabase(file, { migrations: migrations.slice(0, at + 1) })
    expect(db.prepare('SELECT name, provider_model, api_key_ref FROM members').get()).toEqual({
      name: 'Ann',
      provider_model: 'gpt',
      api_key_ref: null,
    })
    db.close()
  })

  it('brings a v16 database with recorded edits up to date (017): each edit keeps its flagged tasks, in key order', () => {
    const file = join(dir, 'v16.sqlite')
    const v16 = openDatabase(file, { migrations: migrations.slice(0, 16) })
    v16.pragma('foreign_keys = OFF')
    v16.prepare("INSERT INTO decision_impacts VALUES (1, 2, 'f1', 'f2', 7), (1, 3, 'f2', 'f3', 9)").run()
    v16
      .prepare(
        `INSERT INTO impact_tasks (decision_id, version, task_id, old_status, status, flag, assignee_id) VALUES
         (1, 2, 5, 'accepted', 'delivered', 'needs_reverification', 2), (1, 2, 3, 'todo', 'todo', 'requirements_updated', NULL)`,
      )
      .run()
    v16.close()
    const db = openDatabase(file)
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(17)
    const rows = db.prepare('SELECT version, last_report_id, tasks FROM decision_impacts ORDER BY version').all()
    expect(rows).toEqual([
      {
        version: 2,
        last_report_id: 7,
        tasks: JSON.stringify([
          [3, 'todo', 'todo', 'requirements_updated', null],
          [5, 'accepted', 'delivered', 'needs_reverification', 2],
        ]),
      },
      { version: 3, last_report_id: 9, tasks: '[]' },
    ])
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'impact_tasks'").pluck().get()).toBe(0)
    db.close()
  })

  it('brings a database with records up to date (020): its decisions, revisions, tasks, reports and claims are searchable', () => {
    const file = join(dir, 'v18.sqlite')
    const before = migrations.findIndex((m) => m.name === '020-search-records')
    const old = openDatabase(file, { migrations: migrations.slice(0, before) })
    old.pragma('foreign_keys = OFF')
    old.exec(`
      INSERT INTO decisions (id, title, statement, status, version, fingerprint, created_at, updated_at)
        VALUES (1, 'Search timeout', 'Gives up after 10 s', 'accepted', 2, 'f2', 'x', 'x');
      INSERT INTO decision_revisions (decision_id, version, title, statement, rationale, status, content_hash, fingerprint, reason, created_at)
        VALUES (1, 1, 'Search timeout', 'Gives up after 5 s', '', 'accepted', 'h1', 'f1', 'created', 'x'),
               (1, 2, 'Search timeout', 'Gives up after 10 s', '', 'accepted', 'h2', 'f2', 'slow providers', 'x');
      INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Web search tool', 'Call the provider', 'todo', 'x', 'x');
      INSERT INTO reports (id, task_id, kind, verdict, summary, claim_count, created_at) VALUES (1, 1, 'test', 'pass', 'Suite green', 1, 'x');
      INSERT INTO claims (id, report_id, ordinal, text) VALUES (1, 1, 0, 'A hung provider times out');
    `)
    old.close()
    const db = openDatabase(file)
    const match = (table: string, q: string) =>
      db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck().all(q)
    expect(match('decisions_fts', 'providers')).toEqual([])
    expect(match('decisions_fts', '"10"')).toEqual([1])
    expect(db.prepare("SELECT version FROM revisions_fts WHERE revisions_fts MATCH 'slow'").pluck().all()).toEqual([2])
    expect(match('tasks_fts', 'provider')).toEqual([1])
    expect(match('reports_fts', 'green')).toEqual([1])
    expect(match('claims_fts', 'hung')).toEqual([1])
    for (const t of ['decisions_fts', 'tasks_fts', 'reports_fts', 'claims_fts'])
      expect(() => db.prepare(`INSERT INTO ${t} (${t}) VALUES ('integrity-check')`).run()).not.toThrow()
    db.close()
  })

  it("brings a database with claims up to date (025): each claim takes its report's verdict", () => {
    const file = join(dir, 'before-025.sqlite')
    const at = migrations.findIndex((m) => m.name === '025-claim-verdicts')
    const old = openDatabase(file, { migrations: migrations.slice(0, at) })
    old.pragma('foreign_keys = OFF')
    old.exec(`
      INSERT INTO tasks (id, title, spec, status, created_at, updated_at) VALUES (1, 'Web search tool', '', 'delivered', 'x', 'x');
      INSERT INTO reports (id, task_id, kind, verdict, summary, claim_count, created_at)
        VALUES (1, 1, 'test', 'fail', 'Broken', 2, 'x'), (2, 1, 'review', 'pass', 'Fine', 1, 'x');
      INSERT INTO claims (id, report_id, ordinal, text) VALUES (1, 1, 0, 'times out'), (2, 1, 1, 'logs'), (3, 2, 0, 'readable');
    `)
    old.close()
    const db = openDatabase(file, { migrations: migrations.slice(0, at + 1) })
    expect(db.prepare('SELECT id, text, verdict FROM claims ORDER BY id').all()).toEqual([
      { id: 1, text: 'times out', verdict: 'fail' },
      { id: 2, text: 'logs', verdict: 'fail' },
      { id: 3, text: 'readable', verdict: 'pass' },
    ])
    expect(() => db.prepare("UPDATE claims SET verdict = 'maybe' WHERE id = 1").run()).toThrow(/CHECK/)
    db.close()
  })

  it('refuses a database written by a newer Concord and leaves it untouched', () => {
    const file = join(dir, 'new.sqlite')
    const raw = new Database(file)
    raw.pragma('user_version = 99')
    raw.close()
    expect(() => openDatabase(file)).toThrow(expect.objectContaining({ code: 'schema_too_new' }))
    const again = new Database(file)
    expect(again.pragma('user_version', { simple: true })).toBe(99)
    again.close()
  })

  it('applies pending migrations all or nothing', () => {
    const db = new Database(join(dir, 'half.sqlite'))
    const broken = [...migrations, { name: '999-broken', up: 'CREATE TABLE fine (x INTEGER) STRICT; THIS IS NOT SQL;' }]
    expect(() => migrate(db, broken)).toThrow()
    expect(db.pragma('user_version', { simple: true })).toBe(0)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get()).toBe(0)
    db.close()
  })

  it('reports schema_too_new through the API for a workspace file from a newer version', async () => {
    const t = makeCore()
    try {
      const ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
      await t.core.close()
      const raw = new Database(join(t.dataDir, 'workspaces', `${ws.id}.sqlite`))
      raw.pragma('user_version = 42')
      raw.close()
      const { createCore } = await import('../../electron/main/core')
      const core = createCore({ dataDir: t.dataDir })
      await expect(core.invoke('decisions.list', { workspaceId: ws.id })).rejects.toMatchObject({
        code: 'schema_too_new',
      })
      await core.close()
    } finally {
      await t.cleanup().catch(() => undefined)
    }
  })
})
