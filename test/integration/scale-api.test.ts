/**
 * Issue 12, server side: paged and set-wise reads, the compact impact with decisions.impact for the rest,
 * one serialization of the impact for the answer and the event, restored claims on a revert, and token
 * figures kept with the steps (checked against a plain SQL recount).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { EventEnvelope } from '../../shared/contract'
import { serializedText, stringifyReusing } from '../../electron/main/platform/events/serialized'
import type { Decision, ImpactReport, ImpactTask, Member, Task, Workspace } from '../../shared/schemas'
import { IMPACT_SUMMARY_LIMIT } from '../../shared/schemas'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import { rejectsWith } from '../fixtures/core'
import { olderFile, rowNo } from '../fixtures/store'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const SHA = 'a'.repeat(40)

let t: OpenWorkspace
let core: Core
let ws: Workspace
let impl: Member, tester: Member

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
  impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
  tester = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
})
afterEach(() => t.cleanup())

const decide = (statement: string) =>
  core.invoke('decisions.create', { workspaceId: ws.id, title: statement, statement })
const task = (title: string, decisions: Decision[], assignee: Member | null = impl) =>
  core.invoke('tasks.create', {
    workspaceId: ws.id,
    title,
    assigneeId: assignee?.id,
    decisionIds: decisions.map((d) => d.id),
  })
const report = (tk: Task, decisions: Decision[], claims = 1) =>
  core.invoke('reports.submit', {
    taskId: tk.id,
    authorId: tester.id,
    kind: 'test',
    verdict: 'pass',
    artifact: { commit: SHA },
    claims: Array.from({ length: claims }, (_, i) => ({ text: `claim ${i}`, decisionIds: decisions.map((d) => d.id) })),
  })

/** Every page of a paged method, following nextCursor to the end. */
async function walk<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<T[]> {
  const all: T[] = []
  let cursor: string | undefined
  for (;;) {
    const p = await page(cursor)
    all.push(...p.items)
    if (p.nextCursor === null) return all
    cursor = p.nextCursor
  }
}

describe('tasks.page and reports.page', () => {
  it('walk every row once in order, with the filters applied on the server', async () => {
    const d1 = await decide('REST')
    const d2 = await decide('SQLite')
    const tasks: Task[] = []
    for (let i = 0; i < 23; i++) tasks.push(await task(`t${i}`, i % 2 ? [d1] : [d2], i % 3 ? impl : tester))
    for (const tk of tasks.slice(0, 6)) await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })

    const all = await walk((cursor) => core.invoke('tasks.page', { workspaceId: ws.id, limit: 5, cursor }))
    expect(all.map((x) => x.id)).toEqual(tasks.map((x) => x.id))
    expect((await core.invoke('tasks.page', { workspaceId: ws.id, limit: 5 })).total).toBe(23)

    const mine = await walk((cursor) =>
      core.invoke('tasks.page', { workspaceId: ws.id, assigneeId: tester.id, limit: 3, cursor }),
    )
    expect(mine.map((x) => x.id)).toEqual(tasks.filter((_, i) => i % 3 === 0).map((x) => x.id))
    const started = await core.invoke('tasks.page', { workspaceId: ws.id, status: ['in_progress'] })
    expect(started.items.map((x) => x.id)).toEqual(tasks.slice(0, 6).map((x) => x.id))
    expect(started.total).toBe(6)
    const onD1 = await core.invoke('tasks.page', { workspaceId: ws.id, decisionId: d1.id, limit: 500 })
    expect(onD1.items.map((x) => x.id)).toEqual(tasks.filter((_, i) => i % 2).map((x) => x.id))

    // Flagged: a flag or a suspect link. The edit of d1 flags its 11 tasks; nothing else is.
    await core.invoke('decisions.update', { decisionId: d1.id, expectedVersion: 1, statement: 'GraphQL' })
    const flagged = await core.invoke('tasks.page', { workspaceId: ws.id, flagged: true, limit: 500 })
    expect(flagged.items.map((x) => x.id)).toEqual(onD1.items.map((x) => x.id))
    expect(flagged.items.every((x) => x.flag !== null && x.links.some((l) => l.state === 'suspect'))).toBe(true)
    expect((await core.invoke('tasks.page', { workspaceId: ws.id, flagged: false })).total).toBe(12)
    await rejectsWith(core.invoke('tasks.page', { workspaceId: ws.id, cursor: 'nope' }), 'invalid_params')
  })

  it('pages reports newest first with stale and valid filters and totals', async () => {
    const d1 = await decide('REST')
    const d2 = await decide('SQLite')
    const tk = await task('t', [d1, d2])
    const other = await task('u', [d2])
    const reports = []
    for (let i = 0; i < 17; i++) reports.push(await report(i % 3 ? tk : other, i % 2 ? [d1] : [d2]))
    await core.invoke('decisions.update', { decisionId: d1.id, expectedVersion: 1, statement: 'GraphQL' })

    const all = await walk((cursor) => core.invoke('reports.page', { workspaceId: ws.id, limit: 4, cursor }))
    expect(all.map((r) => r.id)).toEqual(reports.map((r) => r.id).reverse())
    // Stale: claims on d1, or a basis on d1 (every report on tk has one).
    const isStale = (i: number) => i % 2 === 1 || i % 3 !== 0
    const stale = await walk((cursor) =>
      core.invoke('reports.page', { workspaceId: ws.id, stale: true, limit: 3, cursor }),
    )
    expect(stale.map((r) => r.id)).toEqual(
      reports
        .filter((_, i) => isStale(i))
        .map((r) => r.id)
        .reverse(),
    )
    expect(stale.every((r) => r.validity === 'stale')).toBe(true)
    const valid = await core.invoke('reports.page', { workspaceId: ws.id, stale: false })
    expect(valid.items.map((r) => r.id)).toEqual(
      reports
        .filter((_, i) => !isStale(i))
        .map((r) => r.id)
        .reverse(),
    )
    expect(valid.staleTotal).toBe(reports.filter((_, i) => isStale(i)).length)
    const ofOther = await core.invoke('reports.page', { workspaceId: ws.id, taskId: other.id, limit: 2 })
    expect(ofOther.total).toBe(6)
    expect(ofOther.staleTotal).toBe(3)
    expect(ofOther.items.map((r) => r.taskId)).toEqual([other.id, other.id])
  })
})

describe('getMany', () => {
  it('returns the rows asked for in order, leaves unknown ids out, and refuses an unknown workspace', async () => {
    const d = await decide('REST')
    const a = await task('a', [d])
    const b = await task('b', [d])
    const r = await report(a, [d])
    const other = join(t.repoDir, '..', 'other-repo')
    mkdirSync(other)
    const ws2 = await core.invoke('workspaces.open', { repoPath: other })
    const c = await core.invoke('tasks.create', { workspaceId: ws2.id, title: 'c' })
    const missing = `${ws.id}-t999`
    const got = await core.invoke('tasks.getMany', { ids: [b.id, missing, c.id, a.id, b.id] })
    expect(got.map((x) => x.id)).toEqual([b.id, c.id, a.id])
    expect(got[2]).toEqual(await core.invoke('tasks.get', { taskId: a.id }))
    expect(await core.invoke('reports.getMany', { ids: [r.id, `${ws.id}-r77`] })).toEqual([
      await core.invoke('reports.get', { reportId: r.id }),
    ])
    await rejectsWith(core.invoke('tasks.getMany', { ids: ['w00000000-t1'] }), 'not_found')
    await rejectsWith(core.invoke('reports.getMany', { ids: [a.id] }), 'invalid_params')
  })
})

describe('the impact of an edit', () => {
  it('summarizes over IMPACT_SUMMARY_LIMIT affected tasks and reports with right counts, and decisions.impact pages the whole of it', async () => {
    const d = await decide('REST')
    const keep = await decide('SQLite')
    const tasks: Task[] = []
    for (let i = 0; i < 230; i++) tasks.push(await task(`t${i}`, [d, keep], i % 5 ? impl : null))
    for (const tk of tasks.slice(0, 40)) await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    const reports = []
    for (let i = 0; i < 210; i++) reports.push(await report(tasks[i % 230]!, i % 7 ? [d] : [keep], 2))

    const { decision, impact } = await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'GraphQL',
    })
    expect(impact.version).toBe(decision.version)
    expect(impact.truncated).toBe(true)
    // The first tasks and reports in key order: at most IMPACT_SUMMARY_LIMIT each, fewer when both would not fit the frame.
    expect(impact.tasks.length).toBeGreaterThanOrEqual(IMPACT_SUMMARY_LIMIT / 2)
    expect(impact.tasks.length).toBeLessThanOrEqual(IMPACT_SUMMARY_LIMIT)
    expect(impact.tasks.map((x) => x.taskId)).toEqual(tasks.slice(0, impact.tasks.length).map((x) => x.id))
    expect(impact.reports.map((x) => x.reportId)).toEqual(reports.slice(0, impact.reports.length).map((x) => x.id))
    // Oracle: the counts by plain SQL over the rows the edit wrote and the pins it read.
    const db = core.harness.ctx(ws.id).store.db
    const n = rowNo(d.id)
    const sql = (q: string, ...args: unknown[]) =>
      db
        .prepare(q)
        .pluck()
        .get(...args) as number
    expect(impact.counts).toEqual({
      tasks: 230,
      needsAdjustment: 40,
      needsReverification: 0,
      acceptanceRevoked: 0,
      // Every report has a basis on d (its task depends on d), so every report is touched.
      reports: 210,
      staleClaims: sql(
        'SELECT count(*) FROM claim_links WHERE decision_id = ? AND pinned_fingerprint = ?',
        n,
        d.fingerprint,
      ),
      restoredClaims: 0,
    })
    expect(impact.counts.staleClaims).toBe(reports.filter((_, i) => i % 7).length * 2)
    expect(sql("SELECT count(*) FROM tasks WHERE flag = 'needs_adjustment'")).toBe(40)

    const pagedTasks: ImpactTask[] = []
    const pagedReports: ImpactReport[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await core.invoke('decisions.impact', {
        decisionId: d.id,
        version: decision.version,
        cursor,
        limit: 60,
      })
      expect(page.tasks.length).toBeLessThanOrEqual(60)
      pagedTasks.push(...page.tasks)
      pagedReports.push(...page.reports)
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBe(4)
    expect(pagedTasks.map((x) => x.taskId)).toEqual(tasks.map((x) => x.id))
    expect(pagedTasks.slice(0, impact.tasks.length)).toEqual(impact.tasks)
    expect(pagedReports.map((r) => r.reportId)).toEqual(reports.map((r) => r.id))
    expect(pagedReports.slice(0, impact.reports.length)).toEqual(impact.reports)
    expect(pagedReports.reduce((k, r) => k + r.staleClaimIds.length, 0)).toBe(impact.counts.staleClaims)
    expect(pagedTasks.filter((x) => x.flag === 'needs_adjustment').map((x) => x.taskId)).toEqual(
      tasks.slice(0, 40).map((x) => x.id),
    )

    // Reports submitted after the edit are not part of its impact, even when pinned to the old content.
    await core.invoke('reports.submit', {
      taskId: tasks[0]!.id,
      authorId: tester.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: SHA },
      basis: [{ decisionId: d.id, version: 1 }],
      claims: [{ text: 'old', decisionIds: [d.id] }],
    })
    const again = await core.invoke('decisions.impact', { decisionId: d.id, version: decision.version, limit: 500 })
    expect(again.reports.map((r) => r.reportId)).toEqual(reports.map((r) => r.id))
    expect(again.nextCursor).toBeNull()
    // The decision's creation flagged nothing; a version it does not have yet is not found.
    expect(await core.invoke('decisions.impact', { decisionId: d.id, version: 1 })).toEqual({
      tasks: [],
      reports: [],
      nextCursor: null,
    })
    await rejectsWith(core.invoke('decisions.impact', { decisionId: d.id, version: 9 }), 'not_found')
    await rejectsWith(core.invoke('decisions.impact', { decisionId: d.id, version: 2, cursor: 'x' }), 'invalid_params')
  }, 180_000) // 440 API calls of setup: 49 s in a full run at a load of 7

  it('keeps the decision.changed frame under 64 KB with 1,000 affected tasks, and the answer and the event carry one serialization', async () => {
    const d = await decide('REST')
    const ctx = core.harness.ctx(ws.id)
    // 1,000 tasks through the repositories in one transaction (the API path per row only slows the setup).
    const at = new Date().toISOString()
    const ids = ctx.store.transaction(() =>
      Array.from({ length: 1000 }, (_, i) => {
        const id = ctx.store.tasks.insert({
          title: `task number ${i}`,
          spec: '',
          acceptance_criteria: '',
          assignee_id: rowNo(impl.id),
          required_reports: '["test"]',
          created_at: at,
        })
        ctx.store.tasks.replaceLinks(id, [{ decisionId: rowNo(d.id), version: 1, fingerprint: d.fingerprint }])
        return `${ws.id}-t${id}`
      }),
    )
    const tasks = await core.invoke('tasks.getMany', { ids: ids.slice(0, 300) })
    for (const tk of tasks) await report(tk, [d], 3)
    // 250 of them in progress: Impl is told about 250 tasks, Tess about 300 reports.
    for (const id of ids.slice(0, 250)) await core.invoke('tasks.setStatus', { taskId: id, status: 'in_progress' })
    const frames: EventEnvelope[] = []
    const notices: EventEnvelope<'notice.created'>[] = []
    const off = core.bus.on((e) => {
      if (e.event === 'decision.changed') frames.push(e)
      if (e.event === 'notice.created') notices.push(e)
    })
    const result = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'GraphQL' })
    off()
    // Each notice's event names the first IMPACT_SUMMARY_LIMIT ids and counts them all; the stored notice
    // (notices.list) has every id.
    const told = new Map(notices.map((e) => [e.payload.notice.memberId, e.payload.notice]))
    expect([...told.keys()].sort()).toEqual([impl.id, tester.id].sort())
    expect(told.get(impl.id)).toMatchObject({
      taskCount: 250,
      reportCount: 0,
      taskIds: ids.slice(0, IMPACT_SUMMARY_LIMIT),
    })
    expect(told.get(tester.id)).toMatchObject({ taskCount: 0, reportCount: 300 })
    expect(told.get(tester.id)!.reportIds).toHaveLength(IMPACT_SUMMARY_LIMIT)
    for (const e of notices) expect(Buffer.byteLength(stringifyReusing(e))).toBeLessThan(16 * 1024)
    const [implNotice] = await core.invoke('notices.list', { memberId: impl.id })
    expect(implNotice!.taskIds).toEqual(ids.slice(0, 250))
    const [tessNotice] = await core.invoke('notices.list', { memberId: tester.id })
    expect(tessNotice!.reportIds).toHaveLength(300)
    expect(tessNotice!.reportIds.slice(0, IMPACT_SUMMARY_LIMIT)).toEqual(told.get(tester.id)!.reportIds)
    const [frame] = frames
    if (frame?.event !== 'decision.changed') throw new Error('no decision.changed event')
    expect(frame.payload.impact).toBe(result.impact)
    const text = stringifyReusing(frame)
    expect(Buffer.byteLength(text)).toBeLessThan(64 * 1024)
    // Serialized once, where the edit was made: the frame and the answer splice in that very text.
    const made = serializedText(result.impact)
    expect(made).toBe(JSON.stringify(result.impact))
    expect(text).toContain(`"impact":${made}`)
    expect(stringifyReusing({ ok: true, value: result })).toContain(`"impact":${made}`)
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(frame)))
    expect(stringifyReusing({ ok: true, value: result })).toBe(JSON.stringify({ ok: true, value: result }))
    expect(result.impact.counts.tasks).toBe(1000)
    expect(result.impact.counts.reports).toBe(300)
    expect(result.impact.counts.staleClaims).toBe(900)
    expect(result.impact.truncated).toBe(true)
    expect(result.impact.tasks.length).toBeGreaterThan(0)
    // The edit's record keeps every flagged task (decisions.impact pages them), in one row.
    expect(ctx.store.db.prepare('SELECT json_array_length(tasks) FROM decision_impacts').pluck().all()).toEqual([1000])
  }, 180_000) // 550 API calls of setup: over 60 s in a full run at a load of 7

  it('a revert lists the claims it restores, in its preview and its impact, and the reports are valid at once', async () => {
    const d = await decide('REST')
    const other = await decide('SQLite')
    const tk = await task('t', [d, other])
    const r1 = await report(tk, [d], 2)
    const r2 = await report(tk, [other], 1)
    const v2 = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'GraphQL' })
    expect(v2.impact.reports.map((r) => [r.key, r.staleClaimIds, r.restoredClaimIds])).toEqual([
      [r1.key, r1.claims.map((c) => c.id), []],
      [r2.key, [], []],
    ])
    const preview = await core.invoke('decisions.previewImpact', { decisionId: d.id, statement: 'REST' })
    const back = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 2, statement: 'REST' })
    for (const impact of [preview, back.impact]) {
      expect(impact.reports.find((r) => r.reportId === r1.id)).toMatchObject({
        staleClaimIds: [],
        restoredClaimIds: r1.claims.map((c) => c.id),
      })
      expect(impact.counts).toMatchObject({ staleClaims: 0, restoredClaims: 2, reports: 2 })
    }
    const [again] = await core.invoke('reports.getMany', { ids: [r1.id] })
    expect(again?.validity).toBe('valid')
    expect(again?.claims.map((c) => c.state)).toEqual(['valid', 'valid'])
    const page = await core.invoke('decisions.impact', { decisionId: d.id, version: 3 })
    expect(page.reports.find((r) => r.reportId === r1.id)?.restoredClaimIds).toEqual(r1.claims.map((c) => c.id))
  })
})

describe('token figures', () => {
  it('equal a full recount of the steps after a random mix of step writes', async () => {
    const d = await decide('REST')
    const tasks = [await task('a', [d]), await task('b', [d])]
    const { store } = core.harness.ctx(ws.id)
    const members = [rowNo(impl.id), rowNo(tester.id)]
    let seed = 7
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % k
    }
    const kinds = ['model', 'plan', 'tool', 'user', 'message'] as const
    const ids: number[] = []
    const at = new Date().toISOString()
    for (let i = 0; i < 400; i++) {
      const op = rand(5)
      const id = ids[rand(Math.max(1, ids.length))]
      if (op <= 1 || id === undefined) {
        const usage = rand(3) === 0 ? {} : { input_tokens: rand(1000), output_tokens: rand(500) }
        const taskId = rand(3) ? rowNo(tasks[rand(2)]!.id) : null
        ids.push(
          store.steps.insert({
            member_id: members[rand(2)]!,
            kind: kinds[rand(5)]!,
            status: rand(2) ? 'streaming' : 'queued',
            task_id: taskId,
            started_at: at,
            ...usage,
          }),
        )
      } else if (op === 2) {
        store.steps.finish(id, {
          status: 'done',
          ...(rand(2) ? { input_tokens: rand(900), output_tokens: rand(90) } : {}),
          ended_at: at,
        })
      } else if (op === 3) {
        store.steps.setStatus(id, (['done', 'error', 'interrupted', 'queued'] as const)[rand(4)]!)
      } else {
        store.steps.remove(id)
        store.steps.setText(id, 'streamed text')
      }
    }
    // The oracle: the plain SQL the metrics used to run over every step.
    const counted = `input_tokens IS NOT NULL OR (kind IN ('model','plan') AND status = 'done')`
    const recount = (by: 'member_id' | 'task_id') =>
      store.db
        .prepare(
          `SELECT ${by} AS id, coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output, sum(input_tokens IS NULL) AS unreported
           FROM steps WHERE ${by} IS NOT NULL AND (${counted}) GROUP BY ${by} ORDER BY ${by}`,
        )
        .all() as { id: number; input: number; output: number; unreported: number }[]
    const m = await core.invoke('metrics.get', { workspaceId: ws.id })
    const members0 = recount('member_id')
    expect(members0.length).toBeGreaterThan(0)
    expect(m.tokens.perMember).toEqual(members0.map(({ id, ...u }) => ({ memberId: `${ws.id}-m${id}`, ...u })))
    const titles = new Map(
      (store.db.prepare('SELECT id, title FROM tasks').all() as { id: number; title: string }[]).map((r) => [
        r.id,
        r.title,
      ]),
    )
    expect(m.tokens.perTask).toEqual(
      recount('task_id').map(({ id, ...u }) => ({
        taskId: `${ws.id}-t${id}`,
        key: `T-${id}`,
        title: titles.get(id),
        ...u,
      })),
    )
    expect(m.tokens.total.input).toBe(members0.reduce((k, u) => k + u.input, 0))
  })
})

describe('migration 008 on a file that already has steps', () => {
  it('backfills the token figures from the existing steps, then the triggers keep them', () => {
    const file = `${t.dataDir}/old.sqlite`
    const { db: v7, at } = olderFile(file, 7)
    const step = v7.prepare(
      'INSERT INTO steps (member_id, kind, status, task_id, input_tokens, output_tokens, started_at) VALUES (1, ?, ?, ?, ?, ?, ?)',
    )
    step.run('model', 'done', 1, 100, 10, at)
    step.run('model', 'done', null, null, null, at)
    step.run('tool', 'done', 1, null, null, at)
    v7.close()
    const db = openDatabase(file, { migrations })
    const usage = () => db.prepare('SELECT member_id, input, output, unreported, steps FROM member_usage').all()
    expect(usage()).toEqual([{ member_id: 1, input: 100, output: 10, unreported: 1, steps: 2 }])
    expect(db.prepare('SELECT task_id, input, steps FROM task_usage').all()).toEqual([
      { task_id: 1, input: 100, steps: 1 },
    ])
    db.prepare(
      "UPDATE steps SET input_tokens = 5, output_tokens = 1 WHERE kind = 'model' AND input_tokens IS NULL",
    ).run()
    expect(usage()).toEqual([{ member_id: 1, input: 105, output: 11, unreported: 0, steps: 2 }])
    db.close()
  })
})
