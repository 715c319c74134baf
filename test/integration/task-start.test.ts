import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  // This core starts the assignee's turn on a task start, as the app does.
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 }, taskStartTurns: true },
    isolation: 'worktree',
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const member = (name: string): Promise<Member> => t.member(name)
const idle = (m: Member) => sessionState(t.core, m.id, 'idle', { timeoutMs: 15_000 })
const lastUser = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').at(-1)?.content
const worktreeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

describe('starting a task starts its agent', () => {
  it("moving a task to in progress starts the assignee's turn on it, in its worktree, as a message from Concord", async () => {
    const ivy = await member('Ivy')
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Add search timeout',
      spec: 'Searches give up after 5 s.',
      assigneeId: ivy.id,
    })
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'timeout.txt', content: '5s' } }] },
      { text: 'Started.' },
    )
    const done = idle(ivy)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await done
    const [first] = await server.waitForRequests(1)
    expect(lastUser(first!)).toBe('[From Concord] Start T-1: Add search timeout\n\nSearches give up after 5 s.')
    const steps = (await t.core.invoke('sessions.get', { memberId: ivy.id })).steps
    // Concord's message, not one the human typed; the turn is bound to the task and worked in its tree.
    expect(steps[0]).toMatchObject({
      kind: 'message',
      fromMemberId: null,
      origin: 'concord',
      taskId: task.id,
      text: 'Start T-1: Add search timeout\n\nSearches give up after 5 s.',
    })
    expect(steps.filter((s) => s.kind === 'tool').map((s) => [s.tool?.name, s.tool?.isError])).toEqual([
      ['write_file', false],
    ])
    expect(readFileSync(join(worktreeOf(task), 'timeout.txt'), 'utf8')).toBe('5s')
    expect(existsSync(join(t.repoDir, 'timeout.txt'))).toBe(false)
  })

  it('the workspace setting turns it off; the assignee moving its own task starts nothing; the human starting it again does', async () => {
    const ivy = await member('Ivy')
    expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).startAgentOnTaskStart).toBe(true)
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, startAgentOnTaskStart: false })
    const a = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Off', assigneeId: ivy.id })
    await t.core.invoke('tasks.setStatus', { taskId: a.id, status: 'in_progress' })
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, startAgentOnTaskStart: true })
    const b = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Mine', assigneeId: ivy.id })
    await t.core.invoke('tasks.setStatus', { taskId: b.id, status: 'in_progress', actorId: ivy.id })
    expect((await t.core.invoke('sessions.get', { memberId: ivy.id })).steps).toEqual([])
    expect(server.requests).toHaveLength(0)
    // Moving it back and starting it again (the human) is a start.
    await t.core.invoke('tasks.setStatus', { taskId: b.id, status: 'todo' })
    server.enqueue({ text: 'On it.' })
    const done = idle(ivy)
    await t.core.invoke('tasks.setStatus', { taskId: b.id, status: 'in_progress' })
    await done
    expect(lastUser(server.requests[0]!)).toBe('[From Concord] Start T-2: Mine')
  })

  it("a member under ask cannot launder a command through an auto assignee by starting its task; the human's start keeps auto", async () => {
    const lead = await t.member('Lead', { approval: 'ask', authority: 'decider' })
    const impl = await t.member('Impl', { approval: 'auto' })
    // Lead's and Impl's calls race once the task starts: each reply is chosen by who asks.
    const isImpl = (r: RecordedRequest) => String(r.body.messages[0].content).startsWith('You are Impl')
    const either = (forImpl: object, forLead: object) => (r: RecordedRequest) => (isImpl(r) ? forImpl : forLead)
    const write = (path: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path, content: 'x' } }] })
    server.enqueue(
      { toolCalls: [{ name: 'create_task', arguments: { title: 'Cache', assigneeId: 'Impl' } }] },
      { toolCalls: [{ name: 'update_task_status', arguments: { taskId: 'T-1', status: 'in_progress' } }] },
      either(write('laundered.txt'), { text: 'Impl is on it.' }),
      either(write('laundered.txt'), { text: 'Impl is on it.' }),
    )
    const asked: string[] = []
    const off = t.core.bus.on((e) => {
      if (e.event !== 'session.state' || e.payload.session.state !== 'waiting_approval') return
      const call = e.payload.session.pendingApprovals[0]!
      const memberId = e.payload.session.memberId
      asked.push(`${memberId === lead.id ? 'Lead' : 'Impl'}:${call.name}`)
      // The human lets Lead create the task, and refuses what Impl's started turn asks.
      void t.core.invoke('sessions.approve', { memberId, callId: call.callId, allow: memberId === lead.id })
    })
    const leadIdle = sessionState(t.core, lead.id, 'idle', { timeoutMs: 15_000 })
    const implIdle = idle(impl)
    await t.core.invoke('sessions.send', { memberId: lead.id, text: 'get a cache built' })
    await leadIdle
    server.enqueue({ text: 'Not written.' })
    await implIdle
    off()
    const [task] = await t.core.invoke('tasks.list', { workspaceId: ws.id })
    expect(task).toMatchObject({ status: 'in_progress', assigneeId: impl.id })
    // Impl's write waited for the human under Lead's `ask`, and was refused: nothing was written.
    expect(asked).toEqual(['Lead:create_task', 'Impl:write_file'])
    const implTools = (await t.core.invoke('sessions.get', { memberId: impl.id })).steps.filter(
      (s) => s.kind === 'tool',
    )
    expect(implTools.map((s) => [s.tool?.name, s.status])).toEqual([['write_file', 'denied']])
    expect(existsSync(join(worktreeOf(task!), 'laundered.txt'))).toBe(false)

    // The human starting a task of Impl's: Impl's own `auto` applies, nothing asks.
    const mine = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Mine', assigneeId: impl.id })
    server.enqueue(write('mine.txt'), { text: 'Done.' })
    const done = idle(impl)
    await t.core.invoke('tasks.setStatus', { taskId: mine.id, status: 'in_progress' })
    await done
    expect(asked).toHaveLength(2)
    expect(readFileSync(join(worktreeOf(mine), 'mine.txt'), 'utf8')).toBe('x')
  })
})
