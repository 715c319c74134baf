/**
 * A plan before code (issue 33, the review loop): a plan-first task's assignee plans in a read-only tree (its writes
 * and commands' writes are refused), submits the plan with submit_plan, the user asks for changes (the comment reaches
 * the member, which plans again), approves (the next turn writes code, the approved plan in its brief), or rejects
 * (the task goes back to to-do or is cancelled). Bad input has stable codes. Real SQLite file, real git repository,
 * the real sandbox, the scripted model server.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { needsSandbox } from '../fixtures/sandbox-gate'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ivy: Member

beforeEach(async () => {
  // A task's start queues its assignee's turn, as in the product.
  t = await workspaceWithTeam({ isolation: 'worktree', core: { taskStartTurns: true } })
  ivy = await t.member('Ivy')
})
afterEach(() => t.cleanup())

const lastUserText = (body: { messages: { role: string; content: unknown }[] }) =>
  JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '')
const systemText = (body: { messages: { role: string; content: unknown }[] }) =>
  JSON.stringify(body.messages.filter((m) => m.role === 'system').map((m) => m.content))

async function planFirstTask(title = 'Search timeout'): Promise<Task> {
  const d = await t.core.invoke('decisions.create', {
    workspaceId: t.ws.id,
    title: 'Search gives up',
    statement: 'Search gives up after 5 s',
    status: 'accepted',
  })
  return t.core.invoke('tasks.create', {
    decisionIds: [d.id],
    workspaceId: t.ws.id,
    title,
    spec: 'Give up after 5 s',
    assigneeId: ivy.id,
    requiredReports: [],
    planFirst: true,
  })
}

describe('a plan before code', () => {
  it('plans read-only, plans again after a request for changes, and writes code once approved', async (ctx) => {
    await needsSandbox(ctx)
    const task = await planFirstTask()
    expect(task).toMatchObject({ planFirst: true, plan: null })
    const tree = join(t.dataDir, 'worktrees', t.ws.id, task.key)

    // The first turn tries to write (the tool and a command), then submits its plan.
    t.server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'search.js', content: 'early code' } }] },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'echo early > planned.txt' } }] },
      { toolCalls: [{ name: 'submit_plan', arguments: { taskId: 'T-1', plan: '1. Add a 5 s timeout to search()' } }] },
    )
    let idle = sessionState(t.core, ivy.id, 'idle', { timeoutMs: 20_000 })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await idle
    const first = await t.server.waitForRequests(3)
    expect(lastUserText(first[0]!.body)).toContain('Plan first')
    expect(systemText(first[0]!.body)).toContain('read-only')
    // Both writes were refused in the read-only tree; the plan waits for the user.
    expect(existsSync(join(tree, 'search.js'))).toBe(false)
    expect(existsSync(join(tree, 'planned.txt'))).toBe(false)
    const steps = (await t.core.invoke('sessions.get', { memberId: ivy.id, taskId: task.id })).steps
    const observations = steps.filter((s) => s.kind === 'tool').map((s) => [s.tool?.name, s.text])
    expect(observations[0]).toEqual(['write_file', expect.stringContaining('read-only')])
    expect(observations[1]).toEqual(['run_command', expect.stringMatching(/Read-only file system/i)])
    let got = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(got.plan).toMatchObject({
      n: 1,
      state: 'pending',
      authorId: ivy.id,
      body: '1. Add a 5 s timeout to search()',
    })
    // Nothing is delivered before a plan is approved.
    await rejectsWith(t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' }), 'invalid_transition')

    // Changes requested: the comment reaches the member as a message, and it plans again.
    t.server.enqueue({
      toolCalls: [
        {
          name: 'submit_plan',
          arguments: { taskId: 'T-1', plan: '1. Add a 5 s timeout\n2. Return the partial results' },
        },
      ],
    })
    idle = sessionState(t.core, ivy.id, 'idle', { timeoutMs: 20_000 })
    const asked = await t.core.invoke('plans.requestChanges', {
      taskId: task.id,
      comment: 'Keep the partial results on timeout',
    })
    expect(asked.plan).toMatchObject({
      n: 1,
      state: 'changes_requested',
      comment: 'Keep the partial results on timeout',
    })
    expect(asked.stepId).toBeTruthy()
    await idle
    const second = await t.server.waitForRequests(4)
    expect(lastUserText(second[3]!.body)).toContain('Keep the partial results on timeout')
    got = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(got.plan).toMatchObject({ n: 2, state: 'pending' })

    // Approved: the next turn runs in a writable tree with the approved plan in its brief.
    t.server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'search.js', content: 'timeout(5000)\n' } }] },
      { text: 'Done.' },
    )
    idle = sessionState(t.core, ivy.id, 'idle', { timeoutMs: 20_000 })
    const approved = await t.core.invoke('plans.approve', { taskId: task.id })
    expect(approved.plan).toMatchObject({ n: 2, state: 'approved' })
    await idle
    const third = await t.server.waitForRequests(6)
    expect(lastUserText(third[4]!.body)).toContain('approved')
    expect(systemText(third[4]!.body)).toContain('Approved plan 2')
    expect(systemText(third[4]!.body)).toContain('Return the partial results')
    expect(readFileSync(join(tree, 'search.js'), 'utf8')).toBe('timeout(5000)\n')

    // The plans stay as the task's history.
    const plans = await t.core.invoke('plans.list', { taskId: task.id })
    expect(plans.map((p) => [p.n, p.state])).toEqual([
      [1, 'changes_requested'],
      [2, 'approved'],
    ])
    // Decided once; nothing more to plan.
    await rejectsWith(t.core.invoke('plans.approve', { taskId: task.id }), 'plan_not_pending')
    await rejectsWith(
      t.core.invoke('plans.submit', { taskId: task.id, plan: 'again', actorId: ivy.id }),
      'invalid_transition',
    )
    await rejectsWith(t.core.invoke('tasks.update', { taskId: task.id, planFirst: false }), 'invalid_transition')
  }, 90_000)

  it('rejects a plan back to to-do or cancelled, and refuses bad input with stable codes', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, startAgentOnTaskStart: false })
    const task = await planFirstTask()
    const submit = (plan: string, taskId = task.id) => t.core.invoke('plans.submit', { taskId, plan, actorId: ivy.id })
    // Not in progress yet; no plan to decide.
    await rejectsWith(submit('1. do it'), 'invalid_transition')
    await rejectsWith(t.core.invoke('plans.approve', { taskId: task.id }), 'plan_not_pending')
    await rejectsWith(t.core.invoke('plans.reject', { taskId: task.id }), 'plan_not_pending')
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await rejectsWith(submit('   \n '), 'plan_empty')
    await rejectsWith(t.core.invoke('plans.requestChanges', { taskId: task.id, comment: '  ' }), 'invalid_params')
    const { plan } = await submit('1. do it')
    await rejectsWith(submit('1. do it again'), 'invalid_transition')
    // The member who wrote it may not decide it, whatever its authority.
    await rejectsWith(t.core.invoke('plans.approve', { taskId: task.id, actorId: ivy.id }), 'forbidden')

    const rejected = await t.core.invoke('plans.reject', { taskId: task.id, comment: 'Not now' })
    expect(rejected.plan).toMatchObject({ id: plan.id, state: 'rejected', rejectedTo: 'todo', comment: 'Not now' })
    expect(rejected.task.status).toBe('todo')
    await rejectsWith(t.core.invoke('plans.reject', { taskId: task.id }), 'plan_not_pending')

    // Started again, it plans again; this time rejected to cancelled.
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).plan?.state).toBe('rejected')
    await submit('2. do it better')
    const cancelled = await t.core.invoke('plans.reject', { taskId: task.id, to: 'cancelled' })
    expect(cancelled.task.status).toBe('cancelled')
    expect(cancelled.plan).toMatchObject({ n: 2, rejectedTo: 'cancelled' })

    // A task that is not plan first asks for no plan; the workspace default makes new tasks plan first.
    const plain = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Plain', assigneeId: ivy.id })
    expect(plain.planFirst).toBe(false)
    await t.core.invoke('tasks.setStatus', { taskId: plain.id, status: 'in_progress' })
    await rejectsWith(submit('1. x', plain.id), 'invalid_transition')
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, planFirst: true })
    const byDefault = await t.core.invoke('tasks.create', {
      workspaceId: t.ws.id,
      title: 'Default',
      assigneeId: ivy.id,
    })
    expect(byDefault.planFirst).toBe(true)
    // Chosen as the task starts.
    const started = await t.core.invoke('tasks.setStatus', {
      taskId: byDefault.id,
      status: 'in_progress',
      planFirst: false,
    })
    expect(started.planFirst).toBe(false)
    const missing = task.id.replace(/t\d+$/, 't999')
    await rejectsWith(submit('1. x', missing), 'not_found')

    // The plans are kept in the export (JSON, and the decision's consequences in MADR), and restored by import.
    const json = await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'json', outDir: t.dataDir })
    const text = readFileSync(json.files[0]!, 'utf8')
    const doc = JSON.parse(text) as { tasks: { id: string; planFirst?: boolean; plans?: unknown[] }[] }
    expect(doc.tasks[0]).toMatchObject({
      id: 'T-1',
      planFirst: true,
      plans: [
        { n: 1, body: '1. do it', state: 'rejected', rejectedTo: 'todo', comment: 'Not now', authorId: 'M-1' },
        { n: 2, body: '2. do it better', state: 'rejected', rejectedTo: 'cancelled', comment: null },
      ],
    })
    expect(doc.tasks[1]).not.toHaveProperty('plans')
    const madr = await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'madr', outDir: t.dataDir })
    const adr = madr.files.find((f) => /0001-/.test(f))!
    expect(readFileSync(adr, 'utf8')).toMatch(/T-1 “Search timeout”.*; plan 2 rejected\./)
    const repo2 = join(t.repoDir, '..', 'repo2')
    mkdirSync(repo2)
    const restored = await t.core.invoke('import.workspace', { path: json.files[0]!, repoPath: repo2 })
    const restoredT1 = (await t.core.invoke('tasks.list', { workspaceId: restored.id }))[0]!
    expect(restoredT1).toMatchObject({ planFirst: true, plan: { n: 2, state: 'rejected' } })
    const again = await t.core.invoke('export.decisionLog', { workspaceId: restored.id, format: 'json', outDir: repo2 })
    expect(readFileSync(again.files[0]!, 'utf8').replace(/"exportedAt": ".*"/, '')).toBe(
      text.replace(/"exportedAt": ".*"/, ''),
    )
  })
})
