import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Task, Workspace } from '../../shared/schemas'
import { canMove, taskMoves, taskStatuses, taskStatusWords, type TaskStatusValue } from '../../shared/task-rules'
import { rejectsWith } from '../fixtures/core'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const SHA = 'c'.repeat(40)
let t: OpenWorkspace
let core: Core
let ws: Workspace

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
})
afterEach(() => t.cleanup())

const set = (task: Task, status: TaskStatusValue) =>
  core.invoke('tasks.setStatus', {
    taskId: task.id,
    status,
    ...(status === 'delivered' ? { artifact: { commit: SHA } } : {}),
  })

/** A fresh task brought to `status` by allowed moves only (no reports required, so acceptance needs none). */
async function taskIn(status: TaskStatusValue): Promise<Task> {
  const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: `in ${status}`, requiredReports: [] })
  const path: Record<TaskStatusValue, TaskStatusValue[]> = {
    todo: [],
    in_progress: ['in_progress'],
    delivered: ['in_progress', 'delivered'],
    accepted: ['in_progress', 'delivered'],
    blocked: ['blocked'],
    cancelled: ['cancelled'],
  }
  let at = task
  for (const s of path[status]) at = await set(at, s)
  if (status === 'accepted') at = await core.invoke('tasks.accept', { taskId: at.id })
  expect(at.status).toBe(status)
  return at
}

const pairs = taskStatuses.flatMap((from) => taskStatuses.filter((to) => to !== from).map((to) => [from, to] as const))

describe('task moves are the shared table, enforced by the core', () => {
  it.each(pairs.filter(([from, to]) => canMove(from, to)))('allows %s → %s', async (from, to) => {
    const task = await taskIn(from)
    // The one move tasks.setStatus never makes: acceptance checks the evidence in tasks.accept.
    const moved = to === 'accepted' ? await core.invoke('tasks.accept', { taskId: task.id }) : await set(task, to)
    expect(moved.status).toBe(to)
    expect((await core.invoke('tasks.get', { taskId: task.id })).status).toBe(to)
  })

  it.each(pairs.filter(([from, to]) => !canMove(from, to)))(
    'refuses %s → %s, naming the allowed moves',
    async (from, to) => {
      const task = await taskIn(from)
      const err = await rejectsWith(set(task, to), 'invalid_transition')
      expect(err.message).toContain(`${task.key} is “${taskStatusWords[from]}”`)
      for (const allowed of taskMoves[from]) expect(err.message).toContain(`“${taskStatusWords[allowed]}”`)
      expect(err.message).toContain(`not to “${taskStatusWords[to]}”`)
      // The card stays: nothing was written.
      expect((await core.invoke('tasks.get', { taskId: task.id })).status).toBe(from)
    },
  )

  it('refuses acceptance through setStatus even where the board allows it, and a todo → delivered before asking for an artifact', async () => {
    const delivered = await taskIn('delivered')
    expect((await rejectsWith(set(delivered, 'accepted'), 'invalid_transition')).message).toContain('tasks.accept')
    const todo = await taskIn('todo')
    await rejectsWith(core.invoke('tasks.setStatus', { taskId: todo.id, status: 'delivered' }), 'invalid_transition')
  })

  it('keeps a task where it is when asked to stay (a re-delivery records the new artifact)', async () => {
    const task = await taskIn('delivered')
    const again = await core.invoke('tasks.setStatus', {
      taskId: task.id,
      status: 'delivered',
      artifact: { commit: 'd'.repeat(40) },
    })
    expect([again.status, again.artifact?.commit]).toEqual(['delivered', 'd'.repeat(40)])
  })
})
