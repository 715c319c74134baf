import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Task, Workspace } from '../../shared/schemas'
import { makeCore, waitForEvent, type TestCore } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'

let t: TestCore
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  server = await startModelServer()
  // This core starts the assignee's turn on a task start, as the app does.
  t = makeCore({ git: true, provider: { maxRetries: 0 }, taskStartTurns: true })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

function member(name: string): Promise<Member> {
  return t.core.invoke('members.create', {
    workspaceId: ws.id,
    name,
    role: name.toLowerCase(),
    approval: 'auto',
    authority: 'proposer',
    provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test' },
  })
}

const idle = (m: Member) =>
  waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === m.id &&
      e.payload.session.state === 'idle' &&
      e.payload.session.queued === 0,
    15_000,
  )
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
})
