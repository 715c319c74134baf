/**
 * The loop closes itself (issue 13): flagged members and the authors of stale evidence get turns Concord starts,
 * one per member and change, never a loop; refusals carry the action that resolves each reason; a passing
 * implementation report delivers (autoDeliver) or offers delivery.
 */
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Task, Workspace } from '../../shared/schemas'
import { createCore } from '../../electron/main/core'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { JOIN_MORE, JOIN_SPELLED } from '../../electron/main/harness/reports/auto-turn-queue'
import {
  deliverTask,
  editForSlowProviders,
  passingReport,
  searchTask,
  searchTimeout,
  type Claim,
} from '../fixtures/harness'
import { memberScripts, type MemberReply, type MemberScripts } from '../fixtures/member-scripts'
import { sessionDelta, sessionState, sessionWhere } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let head: string
/** Scripted replies per member, and the model requests per member name, in order. */
let replies: MemberScripts

beforeEach(async () => {
  replies = memberScripts((name) => ({ text: `${name} has nothing scripted` }))
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 } },
    server: { unscripted: replies.unscripted },
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ws = t.ws
  // These tests count the turns a change starts; the first checks a delivery asks for (autoChecks) would add a turn
  // to each tester and reviewer here: they are tested in checks-asked.test.ts.
  await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoChecks: false })
  head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
})
afterEach(() => t.cleanup())

const member = (name: string, role: string, extra: Record<string, unknown> = {}): Promise<Member> =>
  t.member(name, { role, ...extra })
const script = (name: string, ...r: MemberReply[]) => replies.script(name, ...r)
const steps = async (m: Member): Promise<Step[]> => (await t.core.invoke('sessions.get', { memberId: m.id })).steps
const byConcord = (s: Step[]) => s.filter((x) => x.origin === 'concord')
/** The member has run a turn and is idle with nothing queued. */
const settles = (m: Member) => sessionState(t.core, m.id, 'idle', { timeoutMs: 15_000 })
const runs = (m: Member) => sessionState(t.core, m.id, 'running', { queued: 'any', timeoutMs: 15_000 })

async function decisionAndTask(assignee: Member, status: Task['status'] = 'in_progress') {
  const { d, task } = await searchTask(t.core, ws.id, assignee, { requiredReports: ['test', 'review'] })
  if (status === 'delivered')
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: head } })
  return { d, task }
}
const edit = (d: { id: string; version: number }, statement?: string) => editForSlowProviders(t.core, d, statement)
/** The model's call of submit_report: a passing report of this kind on T-1, its one claim on D-1. */
const reportCall = (kind: string, summary: string, claim: string) => ({
  toolCalls: [
    {
      name: 'submit_report',
      arguments: { taskId: 'T-1', kind, verdict: 'pass', summary, claims: [{ text: claim, decisionIds: ['D-1'] }] },
    },
  ],
})
/** A passing report by the author on the task's first commit. */
const passed = (task: Task, author: Member, kind: 'implementation' | 'test' | 'review', claims?: Claim[]) =>
  passingReport(t.core, task, author, kind, head, claims)

/** Waits until the member has settled after a human message: everything queued before it has run. */
async function humanSays(m: Member, text: string) {
  script(m.name, { text: 'noted' })
  const done = settles(m)
  await t.core.invoke('sessions.send', { memberId: m.id, text })
  await done
}

describe('automatic turns', () => {
  it('a flag on an idle assignee starts exactly one turn, started by Concord, and its results start no other', async () => {
    const impl = await member('Impl', 'implementer')
    const { d, task } = await decisionAndTask(impl)
    script(
      impl.name,
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted to 10 s.' },
    )
    const ran = runs(impl)
    const idle = settles(impl)
    await edit(d)
    await ran
    await idle
    const auto = byConcord(await steps(impl))
    expect(auto).toHaveLength(1)
    expect(auto[0]).toMatchObject({ kind: 'message', fromMemberId: null, taskId: task.id })
    expect(auto[0]!.text.split('\n')[0]).toBe('D-1 changed (now v2)')
    expect(auto[0]!.text).toContain('T-1 is in progress and needs adjustment')
    // The model was told it comes from Concord, with the notice in its brief.
    const first = replies.asked.get('Impl')![0]
    expect(JSON.stringify(first!.body.messages.at(-1))).toContain('[From Concord] D-1 changed (now v2)')
    expect(first!.body.messages[0].content).toContain('10 s and returns partial results')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).flag).toBeNull()

    // No loop: the acknowledgement started nothing; the next turn is the human's own message.
    await humanSays(impl, 'anything else?')
    const all = await steps(impl)
    expect(byConcord(all)).toHaveLength(1)
    expect(all.filter((s) => s.kind === 'user' || s.kind === 'message').map((s) => s.origin ?? 'human')).toEqual([
      'concord',
      'human',
    ])
    expect(replies.asked.get('Impl')).toHaveLength(3)
    expect((await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns).toBe(1)
  })

  it("an edit answers before any of its automatic turns' work runs, and that work runs in slices", async () => {
    const impl = await member('Impl', 'implementer')
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s',
    })
    const TASKS = 60
    for (let i = 0; i < TASKS; i++) {
      const task = await t.core.invoke('tasks.create', {
        workspaceId: ws.id,
        title: `search ${i}`,
        assigneeId: impl.id,
        decisionIds: [d.id],
      })
      await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    }
    const { db } = t.core.harness.ctx(ws.id).store
    const claimed = () => db.prepare('SELECT count(*) FROM auto_turns').pluck().get() as number
    const order: string[] = []
    const off = t.core.bus.on((e) => {
      if (
        e.event === 'session.state' &&
        e.payload.session.memberId === impl.id &&
        e.payload.session.state === 'running'
      )
        order.push('turn')
    })
    script(impl.name, { text: 'Adjusting all of them.' })
    const idle = settles(impl)
    const slices: number[] = []
    await edit(d).then(() => {
      // The answer is in the caller's hands before a single trigger was claimed or any turn queued.
      order.push(`answered with ${claimed()} claimed`)
      // The first slice runs in the next check phase: it claims some, not all (each later slice lets the loop serve others).
      setImmediate(() => slices.push(claimed()))
    })
    await expect.poll(claimed, { timeout: 10_000 }).toBe(TASKS)
    await idle
    off()
    expect(order[0]).toBe('answered with 0 claimed')
    expect(order).toContain('turn')
    expect(slices[0]).toBeLessThan(TASKS)
    // Every trigger joined the one turn.
    expect(byConcord(await steps(impl))).toHaveLength(1)
  })

  it('a busy member whose turn ends before it reads the notice gets the turn after it, one per change', async () => {
    const impl = await member('Impl', 'implementer')
    const { d } = await decisionAndTask(impl)
    script(impl.name, () => {
      // Two edits land while the member's last call of its turn is in flight: it never reads them in that turn.
      void edit(d).then((r) => edit(r.decision, 'Web search gives up after 20 s'))
      return { text: 'Wrote it.' }
    })
    script(
      impl.name,
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted.' },
    )
    const auto = sessionWhere(
      t.core,
      impl.id,
      (s) => s.state === 'running' && (replies.asked.get('Impl')?.length ?? 0) === 1,
      15_000,
    )
    await t.core.invoke('sessions.send', { memberId: impl.id, text: 'write search.ts' })
    await auto
    await settles(impl)
    const now = await steps(impl)
    const starts = now.filter((s) => s.kind === 'user' || s.kind === 'message')
    // One auto turn for the two notices, after the human's turn had answered.
    expect(starts.map((s) => s.origin ?? 'human')).toEqual(['human', 'concord'])
    expect(starts[1]!.text).toContain('D-1 changed (now v2)')
    expect(starts[1]!.text).toContain('D-1 changed (now v3)')
    const answer = now.findIndex((s) => s.kind === 'model' && s.text === 'Wrote it.')
    const work = now.filter((s) => s.turnId === starts[1]!.id && s.kind === 'model')
    expect(work).toHaveLength(2)
    for (const w of work) expect(now.indexOf(w)).toBeGreaterThan(answer)
    expect(replies.asked.get('Impl')).toHaveLength(3)
  })

  it('a flag turn a busy member was owed when Concord stopped starts after the restart, once', async () => {
    const impl = await member('Impl', 'implementer')
    const { d } = await decisionAndTask(impl)
    // A slow reply: Impl is in its turn when the edit lands, so the flag turn waits (in memory) for it to end.
    script(impl.name, { text: 'writing '.repeat(200), chunkSize: 8, chunkDelayMs: 30 })
    const streaming = sessionDelta(t.core, impl.id, 15_000)
    await t.core.invoke('sessions.send', { memberId: impl.id, text: 'write search.ts' })
    await streaming
    await edit(d)
    expect(byConcord(await steps(impl))).toHaveLength(0)
    // Concord stops mid-turn; the notice is still pending.
    await t.core.close()
    t.core = createCore({ dataDir: t.dataDir, provider: { maxRetries: 0 } })
    script(
      impl.name,
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted.' },
    )
    await expect.poll(async () => byConcord(await steps(impl)).length, { timeout: 10_000 }).toBe(1)
    await settles(impl)
    const auto = byConcord(await steps(impl))
    expect(auto).toHaveLength(1)
    expect(auto[0]!.text).toContain('T-1 is in progress and needs adjustment')
    expect(
      (await t.core.invoke('tasks.get', { taskId: (await t.core.invoke('tasks.list', { workspaceId: ws.id }))[0]!.id }))
        .flag,
    ).toBeNull()
    // Another restart starts nothing more: that change has had its turn.
    await t.core.close()
    t.core = createCore({ dataDir: t.dataDir, provider: { maxRetries: 0 } })
    await humanSays(impl, 'anything else?')
    expect(byConcord(await steps(impl))).toHaveLength(1)
  })

  it('a message queued when Concord stopped runs after the restart without anyone opening the chat', async () => {
    const impl = await member('Impl', 'implementer')
    script(impl.name, { text: 'writing '.repeat(200), chunkSize: 8, chunkDelayMs: 30 })
    const streaming = sessionDelta(t.core, impl.id, 15_000)
    await t.core.invoke('sessions.send', { memberId: impl.id, text: 'write search.ts' })
    await streaming
    await t.core.invoke('sessions.send', { memberId: impl.id, text: 'then the tests' })
    await t.core.close()
    t.core = createCore({ dataDir: t.dataDir, provider: { maxRetries: 0 } })
    script(impl.name, { text: 'Tests written.' })
    // Read from the store: asking for the session would open the member's inbox itself.
    const answered = () =>
      t.core.harness
        .ctx(ws.id)
        .store.db.prepare("SELECT count(*) FROM steps WHERE kind = 'model' AND text = 'Tests written.'")
        .pluck()
        .get()
    await expect.poll(answered, { timeout: 10_000 }).toBe(1)
  })

  it('a busy member that reads the notice mid-turn gets no extra turn for it', async () => {
    const impl = await member('Impl', 'implementer')
    const { d } = await decisionAndTask(impl)
    script(
      impl.name,
      () => {
        void edit(d) // lands while the first call is in flight; the second call carries the notice
        return { toolCalls: [{ name: 'list_files', arguments: {} }] }
      },
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted mid-turn.' },
    )
    const idle = settles(impl)
    await t.core.invoke('sessions.send', { memberId: impl.id, text: 'build it' })
    await idle
    expect(replies.asked.get('Impl')![1]!.body.messages[0].content).toContain('Notices since your last step')
    await humanSays(impl, 'thanks')
    expect(byConcord(await steps(impl))).toHaveLength(0)
    expect(replies.asked.get('Impl')).toHaveLength(4)
  })

  it('with autoTurns off, a flag starts nothing', async () => {
    const impl = await member('Impl', 'implementer')
    const { d } = await decisionAndTask(impl)
    expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).autoTurns).toBe(true)
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    await edit(d)
    await humanSays(impl, 'hello')
    expect(byConcord(await steps(impl))).toHaveLength(0)
    expect(replies.asked.get('Impl')).toHaveLength(1)
    expect((await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns).toBe(0)
  })

  it('members without a model are never started', async () => {
    const human = await t.core.invoke('members.create', { workspaceId: ws.id, name: 'Nobody', role: 'implementer' })
    const { d } = await decisionAndTask(human)
    await edit(d)
    // The notice is queued for it as before; no turn, no error state.
    expect(await t.core.invoke('notices.list', { memberId: human.id, pending: true })).toHaveLength(1)
    expect(byConcord(await steps(human))).toHaveLength(0)
  })
})

describe('reports move tasks', () => {
  it('the whole re-verification: assignee redelivers (autoDeliver), tester and reviewer re-verify the new commit, then it can be accepted', async () => {
    const impl = await member('Impl', 'implementer')
    const tester = await member('Tess', 'tester')
    const reviewer = await member('Rev', 'reviewer')
    const { d, task } = await decisionAndTask(impl, 'delivered')
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoDeliver: true })
    const claim = (text: string) => [{ text, decisionIds: [d.id] }]
    await passed(task, tester, 'test', claim('gives up after 5 s'))
    await passed(task, reviewer, 'review', claim('timeout handled'))

    script(
      impl.name,
      { toolCalls: [{ name: 'update_task_status', arguments: { taskId: 'T-1', status: 'in_progress' } }] },
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'search.ts', content: 'export const timeoutMs = 10_000\n' } },
        ],
      },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'search: 10 s timeout, partial results' } }] },
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      reportCall('implementation', '10 s', 'times out at 10 s'),
    )
    script(tester.name, reportCall('test', 'ok', 'gives up after 10 s'))
    script(reviewer.name, reportCall('review', 'ok', 'partial results handled'))
    /** The member's report read against D-1 v2. */
    const reportOnV2 = (m: Member) =>
      waitForEvent(
        t.core,
        (e) =>
          e.event === 'report.submitted' &&
          e.payload.report.authorId === m.id &&
          e.payload.report.basis[0]?.version === 2,
        20_000,
      )
    const reviewed = reportOnV2(reviewer)
    const tested = reportOnV2(tester)
    await edit(d)
    await Promise.all([reviewed, tested])

    const after = await t.core.invoke('tasks.get', { taskId: task.id })
    const newHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    expect(newHead).not.toBe(head)
    expect(after).toMatchObject({ status: 'delivered', artifact: { commit: newHead } })
    // Tester and reviewer were each started once, for the new commit, not for the old one.
    for (const m of [tester, reviewer]) {
      const auto = byConcord(await steps(m))
      expect(auto).toHaveLength(1)
      expect(auto[0]!.text).toContain(`T-1 was delivered on ${newHead.slice(0, 7)}`)
      expect(auto[0]!.text).toContain(`Re-verify T-1 on ${newHead.slice(0, 7)}`)
    }
    expect(byConcord(await steps(impl))).toHaveLength(1)
    expect(byConcord(await steps(impl))[0]!.text).toContain('needs re-verification')
    const { readiness: ready } = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(ready).toMatchObject({ ready: true, reasons: [] })
    expect((await t.core.invoke('tasks.accept', { taskId: task.id })).status).toBe('accepted')
    expect((await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns).toBe(3)
  })

  it('stale evidence starts its author once per delivery: a turn that ends without a report is not started again', async () => {
    const impl = await member('Impl', 'implementer')
    const tester = await member('Tess', 'tester')
    const { d, task } = await decisionAndTask(impl, 'delivered')
    await passed(task, tester, 'test', [{ text: '5 s', decisionIds: [d.id] }])
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'second'], { cwd: t.repoDir })
    const c2 = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    script(tester.name, { text: 'I looked, but I will report later.' })
    const idle = settles(tester)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: c2 } })
    await idle
    expect(byConcord(await steps(tester))[0]!.text).toContain(`Re-verify T-1 on ${c2.slice(0, 7)}`)
    // The same stale evidence seen again (any change to the task) starts nothing new.
    await t.core.invoke('tasks.update', { taskId: task.id, title: 'Web search tool (v2)' })
    await humanSays(tester, 'ok')
    expect(byConcord(await steps(tester))).toHaveLength(1)
    expect(replies.asked.get('Tess')).toHaveLength(2)
  })

  it('a report is not a delivery: one stale from the start (another commit than the delivered one) starts no turn', async () => {
    const impl = await member('Impl', 'implementer')
    const tester = await member('Tess', 'tester')
    const { task } = await decisionAndTask(impl, 'delivered')
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'second'], { cwd: t.repoDir })
    const c2 = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    // Its task comes anew (task.changed, readinessOnly) with the reason; the author is not sent back for it.
    await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: tester.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: c2 },
      claims: [],
    })
    const { readiness } = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(readiness.reasons.map((r) => r.code)).toContain('evidence_stale')
    await humanSays(tester, 'ok')
    expect(byConcord(await steps(tester))).toHaveLength(0)
    expect(replies.asked.get('Tess')).toHaveLength(1)
  })

  it("one edit that leaves many of a busy member's reports stale joins them into one waiting turn that stays short", async () => {
    const tester = await member('Tess', 'tester')
    const d = await searchTimeout(t.core, ws.id)
    for (let i = 0; i < 20; i++) {
      const task = await t.core.invoke('tasks.create', {
        workspaceId: ws.id,
        title: `search ${i}`,
        decisionIds: [d.id],
        requiredReports: ['test'],
      })
      await deliverTask(t.core, task, head)
      await passed(task, tester, 'test', [{ text: '5 s', decisionIds: [d.id] }])
    }
    // Tess is in a turn (a slow reply), so the turn Concord starts for her waits, and every later trigger joins it.
    script(tester.name, { text: 'working on it '.repeat(40), chunkSize: 8, chunkDelayMs: 40 })
    const busy = runs(tester)
    await t.core.invoke('sessions.send', { memberId: tester.id, text: 'Check the search tasks.' })
    await busy
    await edit(d)
    await expect
      .poll(async () => (await t.core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns, { timeout: 10_000 })
      .toBe(20)
    const waiting = byConcord(await steps(tester))
    expect(waiting).toHaveLength(1)
    expect(waiting[0]!.status).toBe('queued')
    // The first triggers spelled out, then one line for the rest (the notice in her brief lists every report).
    expect(waiting[0]!.text.match(/Re-verify T-\d+/g)).toHaveLength(JOIN_SPELLED)
    expect(waiting[0]!.text.split(JOIN_MORE)).toHaveLength(2)
    // The figure counts every relay the human did not have to make, listed one by one.
    expect((await t.core.invoke('autoTurns.list', { workspaceId: ws.id, limit: 50 })).total).toBe(20)
    // Her turn ends, then the one Concord started runs: one turn for all twenty.
    script(tester.name, { text: 'Re-verifying.' })
    await settles(tester)
    expect(byConcord(await steps(tester))).toHaveLength(1)
  })

  it('autoDeliver delivers only on what the card offers: a report already stale when it comes in delivers nothing', async () => {
    const impl = await member('Impl', 'implementer')
    const { d, task } = await decisionAndTask(impl)
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoDeliver: true, autoTurns: false })
    await edit(d, 'Web search gives up after 10 s.')
    // Read against D-1 v1, which the edit has replaced: stale from the start, so the card offers nothing on it.
    const stale = await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: impl.id,
      kind: 'implementation',
      verdict: 'pass',
      artifact: { commit: head },
      basis: [{ decisionId: d.id, version: 1 }],
      claims: [{ text: 'gives up after 5 s', decisionIds: [d.id] }],
    })
    expect(stale.validity).toBe('stale')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).readiness.deliverOn).toBeNull()
    // Then a report on the current decision, on a newer commit: the one delivery, on that commit (automatic work runs
    // in arrival order, so a delivery on the stale report would have come first and kept the task on the old commit).
    execFileSync('git', ['commit', '--allow-empty', '-qm', 'second'], { cwd: t.repoDir })
    const second = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    const delivered = waitForEvent<{ task: Task }>(
      t.core,
      (e) => e.event === 'task.changed' && e.payload.task.id === task.id && e.payload.task.status === 'delivered',
      15_000,
    )
    await passingReport(t.core, task, impl, 'implementation', second, [
      { text: 'gives up after 10 s', decisionIds: [d.id] },
    ])
    expect((await delivered).payload.task.artifact?.commit).toBe(second)
  })

  it('without autoDeliver, a passing implementation report by the assignee offers delivery on its commit', async () => {
    const impl = await member('Impl', 'implementer')
    const { task } = await decisionAndTask(impl)
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).readiness.deliverOn).toBeNull()
    const r = await passed(task, impl, 'implementation')
    const { readiness: ready } = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(ready.deliverOn).toEqual({ commit: head, reportId: r.id, reportKey: r.key })
    expect(ready.ready).toBe(false)
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')
    // Someone else's passing report offers nothing: delivery is the assignee's word.
    const other = await member('Other', 'implementer')
    await passed(task, other, 'implementation')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).readiness.deliverOn).toBeNull()
  })
})

describe('refusal actions', () => {
  it('each reason names who to ask and carries the message to send', async () => {
    const impl = await member('Impl', 'implementer')
    const { d, task } = await decisionAndTask(impl, 'delivered')
    const sha = head.slice(0, 7)
    // Nobody fits a test or review yet: ask you to pick.
    let err = await rejectsWith(t.core.invoke('tasks.accept', { taskId: task.id }), 'evidence_missing')
    let reasons = (err.details as { reasons: { action: { memberId: string | null; label: string; text: string } }[] })
      .reasons
    expect(reasons.map((r) => r.action.memberId)).toEqual([null, null])

    const tester = await member('Tess', 'tester')
    const reviewer = await member('Rev', 'code reviewer')
    err = await rejectsWith(t.core.invoke('tasks.accept', { taskId: task.id }), 'evidence_missing')
    reasons = (err.details as { reasons: typeof reasons }).reasons
    expect(reasons.map((r) => r.action)).toEqual([
      {
        memberId: tester.id,
        memberName: 'Tess',
        taskId: task.id,
        commit: head,
        label: 'Ask Tess for a test report',
        text: `Please check T-1 on ${sha} and submit a test report on it.`,
      },
      {
        memberId: reviewer.id,
        memberName: 'Rev',
        taskId: task.id,
        commit: head,
        label: 'Ask Rev for a review',
        text: `Please check T-1 on ${sha} and submit a review on it.`,
      },
    ])

    await passed(task, tester, 'test', [{ text: '5 s', decisionIds: [d.id] }])
    const review = await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: reviewer.id,
      kind: 'review',
      verdict: 'fail',
      artifact: { commit: head },
      claims: [],
    })
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    await edit(d)
    err = await rejectsWith(t.core.invoke('tasks.accept', { taskId: task.id }), 'evidence_stale')
    const all = (
      err.details as {
        reasons: {
          code: string
          reportKind: string
          message: string
          action: { memberId: string | null; label: string; text: string }
        }[]
      }
    ).reasons
    const stale = all.filter((r) => r.reportKind === 'test')
    expect(stale.length).toBeGreaterThan(0)
    for (const r of stale) {
      expect(r.action).toMatchObject({ memberId: tester.id, label: `Ask Tess to re-verify T-1 on ${sha}` })
      expect(r.action.text).toContain(
        `Please re-verify T-1 on ${sha} against the current decisions and submit a new test report.`,
      )
      expect(r.action.text).toContain(r.message)
    }
    const failed = all.find((r) => r.reportKind === 'review' && r.code === 'evidence_missing')!
    expect(failed.action).toMatchObject({ memberId: impl.id, label: `Ask Impl to fix what ${review.key} found` })
    // The same reasons, without trying to accept: the task's readiness.
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).readiness.reasons).toEqual(all)
  })
})
