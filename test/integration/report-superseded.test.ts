/**
 * Issue 22, superseded reports (migration 018): after every step of random submits (tasks, kinds, authors and
 * none) and edits, each report's superseded_by is the next newer report of its task, kind and author, and the
 * kept "stale and not superseded" figure of every scope, and reports.page's attentionTotal with and without a task,
 * equal a plain SQL recount over the pins and the decisions. Migration 018 backfills them on a file that has reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { makeCore, type TestCore } from '../fixtures/core'

let t: TestCore
let core: Core
let ws: Workspace

beforeEach(async () => {
  t = makeCore()
  core = t.core
  ws = await core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(() => t.cleanup())

function random(seed: number) {
  let s = seed
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31
    return Math.floor((s / 2 ** 31) * n)
  }
}
const rowNo = (id: string) => Number(/\d+$/.exec(id)![0])
const KINDS = ['implementation', 'test', 'review'] as const

const stale = `(EXISTS (SELECT 1 FROM claim_links c JOIN decisions d ON d.id = c.decision_id WHERE c.report_id = r.id AND c.pinned_fingerprint <> d.fingerprint)
  OR EXISTS (SELECT 1 FROM report_basis b JOIN decisions d ON d.id = b.decision_id WHERE b.report_id = r.id AND b.fingerprint <> d.fingerprint))`
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
      expect({ round, attention: page.attentionTotal }).toEqual({ round, attention: count(`${stale} AND ${live}`) })
      expect(page.staleTotal).toBe(count(stale))
      const m = members[rnd(2)]!
      const byAuthor = await core.invoke('reports.page', { workspaceId: ws.id, authorId: m.id, kind: 'test', limit: 1 })
      expect(byAuthor.attentionTotal).toBe(
        count(`r.author_id = @a AND r.kind = 'test' AND ${stale} AND ${live}`, { a: rowNo(m.id) }),
      )
      const x = tasks[rnd(tasks.length)]!
      const byTask = await core.invoke('reports.page', { workspaceId: ws.id, taskId: x.id, limit: 1 })
      expect(byTask.attentionTotal).toBe(count(`r.task_id = @t AND ${stale} AND ${live}`, { t: rowNo(x.id) }))
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
})
