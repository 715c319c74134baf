import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Task, Workspace } from '../../shared/schemas'
import { makeCore, waitForEvent, type TestCore } from '../fixtures/core'
import { startModelServer, type ModelServer } from '../fixtures/model-server'

let t: TestCore
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  server = await startModelServer()
  t = makeCore({ git: true, provider: { maxRetries: 0 } })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

const worktreeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

async function twoTasks(): Promise<{ ivy: Member; t1: Task; t2: Task }> {
  const ivy = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Ivy',
    role: 'implementer',
    approval: 'auto',
    authority: 'proposer',
    provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test' },
  })
  const mk = async (title: string) => {
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title, assigneeId: ivy.id })
    return t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  }
  return { ivy, t1: await mk('Search timeout'), t2: await mk('Search page') }
}

async function turn(m: Member, text: string, taskId?: string) {
  const done = waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === m.id &&
      e.payload.session.state === 'idle' &&
      e.payload.session.queued === 0,
    15_000,
  )
  const { stepId } = await t.core.invoke('sessions.send', { memberId: m.id, text, ...(taskId ? { taskId } : {}) })
  await done
  const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
  const i = steps.findIndex((s) => s.id === stepId)
  return steps.slice(i)
}

const writes = (path: string, content: string) => [
  { toolCalls: [{ name: 'write_file', arguments: { path, content } }] },
  { text: 'done' },
]

describe('turns that know their task', () => {
  it('with two tasks in progress, a message naming one of them works in its tree', async () => {
    const { ivy, t1, t2 } = await twoTasks()
    server.enqueue(...writes('page.txt', 'page'))
    const steps = await turn(ivy, 'Please build T-2 now: the search page.')
    expect(steps[0]!.taskId).toBe(t2.id)
    expect(steps.find((s) => s.kind === 'tool')).toMatchObject({ status: 'done', tool: { isError: false } })
    expect(readFileSync(join(worktreeOf(t2), 'page.txt'), 'utf8')).toBe('page')
    expect(existsSync(join(worktreeOf(t1), 'page.txt'))).toBe(false)
    // The brief tells the model which tree it is in.
    expect(server.requests[0]!.body.messages[0].content as string).toContain('concord/T-2-search-page')
  })

  it('sessions.send with a taskId binds the turn to it, whatever the text names', async () => {
    const { ivy, t1 } = await twoTasks()
    server.enqueue(...writes('timeout.txt', '5s'))
    const steps = await turn(ivy, 'Go on (T-2 can wait).', t1.id)
    expect(steps[0]!.taskId).toBe(t1.id)
    expect(readFileSync(join(worktreeOf(t1), 'timeout.txt'), 'utf8')).toBe('5s')
  })

  it('a message naming neither (or both) runs read-only, and the refusal names the tasks and how to choose', async () => {
    const { ivy } = await twoTasks()
    server.enqueue(...writes('x.txt', 'x'))
    const steps = await turn(ivy, 'Work on T-1 and T-2.')
    expect(steps[0]!.taskId).toBeNull()
    const tool = steps.find((s) => s.kind === 'tool')!
    expect(tool.tool?.isError).toBe(true)
    expect(tool.text).toContain(
      'bound to none of your 2 tasks in progress (T-1 "Search timeout" and T-2 "Search page")',
    )
    expect(tool.text).toContain('names exactly one of them')
    expect(tool.text).not.toContain('you have no task in progress')
  })
})
