/**
 * Issue 22, superseded reports (migration 018): after every step of random submits (tasks, kinds, authors and
 * none) and edits, each report's superseded_by is the next newer report of its task, kind and author, and the
 * kept "stale and not superseded" figure of every scope, and reports.page's attentionTotal with and without a task,
 * equal a plain SQL recount over the pins and the decisions. Migration 018 backfills them on a file that has reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { random } from '../fixtures/random'
import { olderFile, rowNo, STALE } from '../fixtures/store'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let core: Core
let ws: Workspace

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
})
afterEach(() => t.cleanup())

const KINDS = ['implementation', 'test', 'review'] as const

const live = `NOT EXISTS (SELECT 1 FROM reports n WHERE n.task_id = r.task_id AND n.kind = r.kind AND n.author_id IS r.author_id AND n.id > r.id)`

describe('superseded reports', () => {
  it('superseded_by and the stale-and-not-superseded figures equal a plain SQL recount after random submits and edits', async () => {
    const rnd = random(22)
    const members: Member[] = []
    for (const name of ['Tess', 'Rev'])
      members.push(await core.invoke('members.create', { workspaceId: ws.id, name, role: 'tester' }))
    const decisions: Decision[] = []
    for (const title of ['API', 'DB'])
      decisions.push(await core.invoke('decisions.create', { workspaceId: ws.id, title, statement: 'A' }))
    const tasks: Task[] = []
    for (let i = 0; i < 3; i++)
      tasks.push(
        await core.invoke('tasks.create', { workspaceId: ws.id, title: `t${i}`, decisionIds: [decisions[i % 2]!.id] }),
      )
    const db = core.harness.ctx(ws.id).store.db
    const count = (where: string, args: object = {}) =>
      db.prepare(`SELECT count(*) FROM reports r WHERE ${where}`).pluck().get(args) as number
    let superseded = 0
    for (let round = 0; round < 100; round++) {
      const current = await Promise.all(decisions.map((d) => core.invoke('decisions.get', { decisionId: d.id })))
      if (rnd(10) < 7) {
        const author = rnd(3)
        await core.invoke('reports.submit', {
          taskId: tasks[rnd(tasks.length)]!.id,
          ...(author < 2 ? { authorId: members[author]!.id } : {}),
          kind: KINDS[rnd(2)]!,
          verdict: 'pass',
          artifact: { commit: 'a'.repeat(40) },
          claims: [{ text: 'c', decisionIds: current.filter(() => rnd(2)).map((x) => x.id) }],
        })
      } else {
        const d = current[rnd(2)]!
        const next = ['A', 'B', 'C'].filter((c) => c !== d.statement)[rnd(2)]
        await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement: next })
      }
      expect(
        db
          .prepare(
            `SELECT id, superseded_by FROM reports r WHERE superseded_by IS NOT (SELECT min(n.id) FROM reports n
               WHERE n.task_id = r.task_id AND n.kind = r.kind AND n.author_id IS r.author_id AND n.id > r.id)`,
          )
          .all(),
      ).toEqual([])
      const page = await core.invoke('reports.page', { workspaceId: ws.id, limit: 2 })
      expect({ round, attention: page.attentionTotal }).toEqual({ round, attention: count(`${STALE} AND ${live}`) })
      expect(page.staleTotal).toBe(count(STALE))
      const m = members[rnd(2)]!
      const byAuthor = await core.invoke('reports.page', { workspaceId: ws.id, authorId: m.id, kind: 'test', limit: 1 })
      expect(byAuthor.attentionTotal).toBe(
        count(`r.author_id = @a AND r.kind = 'test' AND ${STALE} AND ${live}`, { a: rowNo(m.id) }),
      )
      const x = tasks[rnd(tasks.length)]!
      const byTask = await core.invoke('reports.page', { workspaceId: ws.id, taskId: x.id, limit: 1 })
      expect(byTask.attentionTotal).toBe(count(`r.task_id = @t AND ${STALE} AND ${live}`, { t: rowNo(x.id) }))
      superseded = count('r.superseded_by IS NOT NULL')
    }
    expect(superseded).toBeGreaterThan(20)
    const last = await core.invoke('reports.page', { workspaceId: ws.id })
    expect(last.staleTotal).toBeGreaterThan(last.attentionTotal)
    expect(last.attentionTotal).toBeGreaterThan(0)
    const newest = await core.invoke('reports.page', { workspaceId: ws.id, limit: 200 })
    const older = newest.items.find((r) => r.supersededBy !== null)!
    expect(rowNo(older.supersededBy!)).toBe(
      db.prepare('SELECT superseded_by FROM reports WHERE id = ?').pluck().get(rowNo(older.id)),
    )
  }, 120_000)

  it('migration 018 backfills superseded_by and the kept figure, then the triggers keep them', () => {
    const file = `${t.dataDir}/old.sqlite`
    const { db: before, at } = olderFile(file, 17, [[1, 'fp2']])
    const report = before.prepare(
      "INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (?, 1, ?, ?, 'pass', 0, ?)",
    )
    const basis = before.prepare(
      'INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count) VALUES (1, ?, 1, ?, 1, ?, 0)',
    )
    // Stale: basis on fp1 (the decision is at fp2). 1, 2: test by A, stale; 3 stale, 4 current: test, no author; 5: review by A, stale.
    for (const [id, author, kind, fp] of [
      [1, 1, 'test', 'fp1'],
      [2, 1, 'test', 'fp1'],
      [3, null, 'test', 'fp1'],
      [4, null, 'test', 'fp2'],
      [5, 1, 'review', 'fp1'],
    ] as const) {
      report.run(id, author, kind, at)
      basis.run(id, fp, author)
    }
    before.close()
    const db = openDatabase(file, { migrations })
    const superseded = () => db.prepare('SELECT id, superseded_by AS by FROM reports ORDER BY id').all()
    const kept = (scope: string) =>
      db.prepare('SELECT stale_live FROM report_counts WHERE scope = ?').pluck().get(scope) as number
    expect(superseded()).toEqual([
      { id: 1, by: 2 },
      { id: 2, by: null },
      { id: 3, by: 4 },
      { id: 4, by: null },
      { id: 5, by: null },
    ])
    expect([kept(''), kept('a1'), kept('a0'), kept('ktest')]).toEqual([2, 2, 0, 1])
    db.prepare(
      "INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (6, 1, 1, 'test', 'pass', 0, ?)",
    ).run(at)
    expect(superseded().at(1)).toEqual({ id: 2, by: 6 })
    expect([kept(''), kept('a1'), kept('ktest'), kept('a1ktest')]).toEqual([1, 1, 0, 0])
    db.close()
  })
})
