/**
 * The items behind the Figures tiles "notices sent" and "relays you did not have to make" (issue 13): as many as
 * the figure counts (and as plain SQL counts), newest first, page by page, each with the step to jump to.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { editForSlowProviders, passingReport, searchTask, startedTask } from '../fixtures/harness'
import { memberScripts, type MemberScripts } from '../fixtures/member-scripts'
import { sessionState } from '../fixtures/sessions'
import { scriptedOpenAI, workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let scripts: MemberScripts['scripts']
let head: string

beforeEach(async () => {
  const replies = memberScripts(() => ({ text: 'Nothing more to do.' }))
  scripts = replies.scripts
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, server: { unscripted: replies.unscripted } })
  ws = t.ws
  head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
})
afterEach(() => t.cleanup())

const member = (name: string, withModel = true): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: ws.id,
    name,
    role: 'implementer',
    approval: 'auto',
    authority: 'proposer',
    ...(withModel ? { provider: scriptedOpenAI(t.server) } : {}),
  })
const settles = (m: Member) => sessionState(t.core, m.id, 'idle', { timeoutMs: 15_000 })
const steps = async (m: Member): Promise<Step[]> => (await t.core.invoke('sessions.get', { memberId: m.id })).steps
/** Plain SQL on the workspace file, beside the API. */
const sql = (q: string): number => t.core.harness.ctx(ws.id).store.db.prepare<[], number>(q).pluck().get() ?? -1

const flaggedTask = (assignee: Member, title: string, decisionId: string) =>
  startedTask(t.core, { workspaceId: ws.id, title, assigneeId: assignee.id, decisionIds: [decisionId] })

describe('the items behind the figures', () => {
  it('notices.sent and autoTurns.list hold as many items as the figures count, each with its step', async () => {
    const impl = await member('Impl')
    const nobody = await member('Nobody', false)
    const { d, task: t1 } = await searchTask(t.core, ws.id, impl)
    await flaggedTask(nobody, 'Search docs', d.id)
    scripts.set('Impl', [
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted to 10 s.' },
    ])
    const idle = settles(impl)
    const edited = await editForSlowProviders(t.core, d, 'Web search gives up after 10 s')
    await idle
    // A second change while Impl is idle again: one more notice each, one more turn for Impl.
    scripts.set('Impl', [
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted to 20 s.' },
    ])
    const idle2 = settles(impl)
    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: edited.decision.version,
      statement: 'Web search gives up after 20 s',
      reason: 'slower',
    })
    await idle2

    const metrics = await t.core.invoke('metrics.get', { workspaceId: ws.id })
    const sent = await t.core.invoke('notices.sent', { workspaceId: ws.id })
    expect(metrics.noticesSent).toBe(4)
    expect(sent.total).toBe(metrics.noticesSent)
    expect(sent.total).toBe(sql('SELECT count(*) FROM notices'))
    expect(sent.items).toHaveLength(4)
    expect(sent.nextCursor).toBeNull()
    // Newest first.
    const seqs = sent.items.map((n) => Number(/n(\d+)$/.exec(n.id)![1]))
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    expect(sent.items.map((n) => n.decisionVersion)).toEqual([3, 3, 2, 2])
    for (const n of sent.items) expect(n.decisionKey).toBe('D-1')

    // Nobody has no model: its notices wait, with no step; Impl's were delivered in a notice step of its session.
    const pending = sent.items.filter((n) => n.memberId === nobody.id)
    expect(pending.map((n) => [n.deliveredAt, n.stepId, n.taskKeys, n.taskCount])).toEqual([
      [null, null, ['T-2'], 1],
      [null, null, ['T-2'], 1],
    ])
    const implSteps = await steps(impl)
    const delivered = sent.items.filter((n) => n.memberId === impl.id)
    expect(delivered).toHaveLength(2)
    for (const n of delivered) {
      expect(n.taskKeys).toEqual(['T-1'])
      const step = implSteps.find((s) => s.id === n.stepId)
      expect(step?.kind).toBe('notice')
      expect(step!.startedAt >= n.deliveredAt!).toBe(true)
    }
    // The step is the one the plain definition names: the member's first notice step started at or after delivery.
    const defined = t.core.harness
      .ctx(ws.id)
      .store.db.prepare<[], { id: number; step: number | null }>(
        `SELECT n.id, (SELECT s.id FROM steps s WHERE s.member_id = n.member_id AND s.kind = 'notice' AND s.started_at >= n.delivered_at ORDER BY s.id LIMIT 1) AS step
         FROM notices n ORDER BY n.id DESC`,
      )
      .all()
    expect(sent.items.map((n) => n.stepId)).toEqual(
      defined.map((r) => (r.step === null ? null : `${ws.id}-s${r.step}`)),
    )
    // Each notice went into its own turn: the newer one is in the later step.
    expect(delivered[0]!.stepId).not.toBe(delivered[1]!.stepId)
    expect(implSteps.findIndex((s) => s.id === delivered[0]!.stepId)).toBeGreaterThan(
      implSteps.findIndex((s) => s.id === delivered[1]!.stepId),
    )

    const turns = await t.core.invoke('autoTurns.list', { workspaceId: ws.id })
    expect(metrics.autoTurns).toBe(2)
    expect(turns.total).toBe(metrics.autoTurns)
    expect(turns.total).toBe(sql('SELECT count(*) FROM auto_turns WHERE step_id IS NOT NULL'))
    expect(turns.items.map((a) => [a.memberId, a.taskId, a.taskKey, a.cause, a.trigger])).toEqual([
      [impl.id, t1.id, 'T-1', 'task_flagged', 'T-1 was flagged when D-1 changed to v3'],
      [impl.id, t1.id, 'T-1', 'task_flagged', 'T-1 was flagged when D-1 changed to v2'],
    ])
    // Each jumps to the message Concord put into Impl's session.
    const byConcord = implSteps.filter((s) => s.origin === 'concord').map((s) => s.id)
    expect(turns.items.map((a) => a.stepId)).toEqual(byConcord.reverse())
  })

  it('a delivery that leaves a report stale: the turn names the report, the task and the delivered commit', async () => {
    const impl = await member('Impl')
    const tess = await member('Tess')
    const { d, task } = await searchTask(t.core, ws.id, impl, { requiredReports: ['test'] })
    await passingReport(t.core, task, tess, 'test', head, [{ text: 'gives up after 5 s', decisionIds: [d.id] }])
    // Delivered on a later commit than Tess tested: its report no longer supports the task, Concord asks it to re-verify.
    writeFileSync(join(t.repoDir, 'search.ts'), 'export const timeoutMs = 5000\n')
    execFileSync('git', ['add', '-A'], { cwd: t.repoDir })
    execFileSync('git', ['commit', '-qm', 'search'], { cwd: t.repoDir })
    const c2 = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    const idle = settles(tess)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: c2 } })
    await idle

    const turns = await t.core.invoke('autoTurns.list', { workspaceId: ws.id })
    expect(turns.total).toBe((await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns)
    expect(turns.items.map((a) => [a.memberId, a.taskKey, a.cause, a.trigger])).toEqual([
      [tess.id, 'T-1', 'evidence_stale', `R-1 went stale for T-1 delivered on ${c2.slice(0, 7)} (now D-1 v1)`],
    ])
    const started = (await steps(tess)).filter((s) => s.origin === 'concord')
    expect(turns.items[0]!.stepId).toBe(started[0]!.id)
  })

  it("a notice to a report's author counts its reports", async () => {
    const rita = await member('Rita', false)
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Retries',
      statement: 'Three retries',
    })
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Retry loop',
      decisionIds: [d.id],
      requiredReports: ['review'],
    })
    for (const text of ['retries three times', 'backs off']) {
      await passingReport(t.core, task, rita, 'review', head, [{ text, decisionIds: [d.id] }])
    }
    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: d.version,
      statement: 'Four retries',
      reason: 'flaky network',
    })
    const sent = await t.core.invoke('notices.sent', { workspaceId: ws.id })
    expect(sent.items.map((n) => [n.memberId, n.reportCount, n.taskCount])).toEqual([[rita.id, 2, 0]])
  })

  it('pages with nextCursor until null, and refuses a cursor it did not give', async () => {
    const nobody = await member('Nobody', false)
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Retries',
      statement: 'Three retries',
    })
    // Seven tasks of one member: each notice names the first five and counts them all.
    for (let i = 1; i <= 7; i++) await flaggedTask(nobody, `Retry loop ${i}`, d.id)
    let version = d.version
    for (const statement of ['Four retries', 'Five retries', 'Six retries']) {
      version = (
        await t.core.invoke('decisions.update', {
          decisionId: d.id,
          expectedVersion: version,
          statement,
          reason: 'flaky network',
        })
      ).decision.version
    }
    const all = await t.core.invoke('notices.sent', { workspaceId: ws.id })
    expect(all.total).toBe(3)
    expect(all.items[0]).toMatchObject({
      taskKeys: ['T-1', 'T-2', 'T-3', 'T-4', 'T-5'],
      taskCount: 7,
      reportCount: 0,
      stepId: null,
      deliveredAt: null,
    })
    expect(all.items[0]!.taskIds).toHaveLength(5)
    const seen: string[] = []
    let cursor: string | undefined
    for (;;) {
      const page = await t.core.invoke('notices.sent', { workspaceId: ws.id, limit: 2, ...(cursor ? { cursor } : {}) })
      expect(page.total).toBe(3)
      seen.push(...page.items.map((n) => n.id))
      if (!page.nextCursor) break
      cursor = page.nextCursor
    }
    expect(seen).toEqual(all.items.map((n) => n.id))

    for (const method of ['notices.sent', 'autoTurns.list'] as const) {
      const e = await rejectsWith(t.core.invoke(method, { workspaceId: ws.id, cursor: 'n7' }), 'invalid_params')
      expect(e.message).toContain(`not a cursor of ${method}`)
      await rejectsWith(t.core.invoke(method, { workspaceId: ws.id, limit: 0 }), 'invalid_params')
    }
    // No turn was started (Nobody has no model): an empty list, as the figure says.
    expect(await t.core.invoke('autoTurns.list', { workspaceId: ws.id })).toEqual({
      items: [],
      nextCursor: null,
      total: 0,
    })
    expect((await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns).toBe(0)
  })
})
