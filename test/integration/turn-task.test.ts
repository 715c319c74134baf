import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, isolation: 'worktree' })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const worktreeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

async function twoTasks(): Promise<{ ivy: Member; t1: Task; t2: Task }> {
  const ivy = await t.member('Ivy', { role: 'implementer', authority: 'proposer' })
  const mk = (title: string) => startedTask(t.core, { workspaceId: ws.id, title, assigneeId: ivy.id })
  return { ivy, t1: await mk('Search timeout'), t2: await mk('Search page') }
}

async function turn(m: Member, text: string, taskId?: string) {
  const done = sessionState(t.core, m.id, 'idle', { timeoutMs: 15_000 })
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
