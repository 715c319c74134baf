/**
 * Follow-ups that do not pile up (issue 30): a merged task keeps the content it was merged on; a change whose
 * content equals it creates no follow-up and cancels (or offers to cancel, per followUps) the follow-ups it made
 * obsolete; a second edit carries the open follow-up to the new version instead of making another. Real SQLite,
 * a real git repository, merges through tasks.merge.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let ws: Workspace
let ivy: Member

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

const V1 = 'Web search gives up after 5 s.'
const V2 = 'Web search gives up after 10 s.'
const V3 = 'Web search gives up after 15 s.'

beforeEach(async () => {
  t = await openWorkspace({ git: true })
  ws = t.ws
  ivy = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Ivy',
    role: 'implementer',
    approval: 'auto',
  })
})
afterEach(async () => t.cleanup())

/** Commits a file in the started task's tree, delivers, accepts and merges it. */
async function land(task: Task, file: string, text: string): Promise<Task> {
  if (task.status !== 'in_progress')
    task = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  writeFileSync(join(treeOf(task), file), text)
  git(treeOf(task), 'add', '-A')
  git(treeOf(task), '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', file)
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  await t.core.invoke('tasks.acknowledge', { taskId: task.id })
  await t.core.invoke('tasks.accept', { taskId: task.id })
  return t.core.invoke('tasks.merge', { taskId: task.id })
}

async function mergedOnV1(): Promise<{ d: Decision; t1: Task }> {
  const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'Search timeout', statement: V1 })
  const task = await startedTask(t.core, {
    workspaceId: ws.id,
    title: 'Search timeout',
    assigneeId: ivy.id,
    decisionIds: [d.id],
    requiredReports: [],
  })
  return { d, t1: await land(task, 'timeout.ts', 'export const timeoutMs = 5000\n') }
}

const edit = (d: Decision, expectedVersion: number, statement: string) =>
  t.core.invoke('decisions.update', { decisionId: d.id, expectedVersion, statement, reason: 'tuning' })
const revert = (d: Decision, expectedVersion: number, toVersion: number) =>
  t.core.invoke('decisions.revert', { decisionId: d.id, expectedVersion, toVersion })
const tasks = () => t.core.invoke('tasks.list', { workspaceId: ws.id })
const get = (task: { id: string }) => t.core.invoke('tasks.get', { taskId: task.id })

describe('follow-ups of a merged task (followUps: create)', () => {
  it('edit, edit, revert: one follow-up, carried to v3, then cancelled; the merged task keeps v1', async () => {
    const { d, t1 } = await mergedOnV1()

    const first = await edit(d, 1, V2)
    expect(first.impact.followUpTaskIds).toHaveLength(1)
    const t2 = (await tasks()).find((x) => x.id !== t1.id)!
    expect(t2).toMatchObject({ key: 'T-2', status: 'todo', title: 'Follow up T-1 for D-1 v2: Search timeout' })
    // The merged task keeps the version it was merged on; its follow-up carries the change, so it is not flagged.
    expect(await get(t1)).toMatchObject({
      flagged: false,
      links: [{ decisionId: d.id, pinnedVersion: 1, currentVersion: 2, state: 'suspect' }],
    })

    const preview = await t.core.invoke('decisions.previewImpact', { decisionId: d.id, statement: V3 })
    expect(preview.mergedTasks).toBeUndefined()
    const second = await edit(d, 2, V3)
    expect(second.impact.followUpTaskIds).toBeUndefined()
    expect(second.impact.mergedTasks).toBeUndefined()
    expect((await tasks()).map((x) => x.key)).toEqual(['T-1', 'T-2'])
    // The open follow-up now names v3 (its text was Concord's) and is flagged like any linked task.
    const carried = await get(t2)
    expect(carried).toMatchObject({ title: 'Follow up T-1 for D-1 v3: Search timeout', flag: 'requirements_updated' })
    expect(carried.spec).toContain(V3)
    expect(carried.spec).not.toContain(V2)
    expect(second.impact.tasks.map((x) => x.key)).toEqual(['T-2'])

    // Back to v1, what T-1 was merged on: nothing to follow up, and T-2 (never started) is cancelled.
    const back = await t.core.invoke('decisions.previewImpact', { decisionId: d.id, statement: V1 })
    expect(back.obsoleteFollowUps).toEqual([
      {
        taskId: t2.id,
        key: 'T-2',
        mergedTaskId: t1.id,
        mergedKey: 'T-1',
        cancelled: true,
        text: 'T-2 is obsolete: D-1 is back to what T-1 was merged on (v1); the change cancels it',
      },
    ])
    expect((await get(t2)).status).toBe('todo')
    const third = await revert(d, 3, 1)
    expect(third.impact.followUpTaskIds).toBeUndefined()
    expect(third.impact.mergedTasks).toBeUndefined()
    expect(third.impact.obsoleteFollowUps).toEqual(back.obsoleteFollowUps)
    // Cancelled before the flagging: not counted among the tasks the edit flagged.
    expect(third.impact.tasks).toEqual([])
    const all = await tasks()
    expect(all.map((x) => [x.key, x.status])).toEqual([
      ['T-1', 'accepted'],
      ['T-2', 'cancelled'],
    ])
    expect(await get(t1)).toMatchObject({
      flagged: false,
      merged: t1.merged,
      links: [{ pinnedVersion: 1, currentVersion: 4, state: 'current' }],
    })
    const changed = t.events
      .filter((e) => e.event === 'task.changed')
      .map((e) => (e.payload as { task: Task }).task)
      .filter((x) => x.key === 'T-2')
    expect(changed.at(-1)?.status).toBe('cancelled')

    // Away from v1 again: T-1 is behind with no follow-up open, so it gets a new one (T-2 stays cancelled).
    const fourth = await edit(d, 4, V2)
    expect(fourth.impact.followUpTaskIds).toHaveLength(1)
    expect((await tasks()).map((x) => [x.key, x.status])).toEqual([
      ['T-1', 'accepted'],
      ['T-2', 'cancelled'],
      ['T-3', 'todo'],
    ])
  }, 60_000)

  it('a follow-up already started is offered for cancellation, not cancelled; tasks.setStatus cancels it', async () => {
    const { d, t1 } = await mergedOnV1()
    await edit(d, 1, V2)
    const t2 = (await tasks()).find((x) => x.id !== t1.id)!
    await t.core.invoke('tasks.setStatus', { taskId: t2.id, status: 'in_progress' })
    const { impact } = await revert(d, 2, 1)
    expect(impact.obsoleteFollowUps).toEqual([
      expect.objectContaining({
        key: 'T-2',
        mergedKey: 'T-1',
        cancelled: false,
        text: 'T-2 is obsolete: D-1 is back to what T-1 was merged on (v1); cancelling it is offered',
      }),
    ])
    expect(impact.followUpTaskIds).toBeUndefined()
    expect(await get(t2)).toMatchObject({ status: 'in_progress', flag: 'needs_adjustment' })
    expect(await t.core.invoke('tasks.setStatus', { taskId: t2.id, status: 'cancelled' })).toMatchObject({
      status: 'cancelled',
    })
    expect((await tasks()).map((x) => x.key)).toEqual(['T-1', 'T-2'])
  }, 60_000)

  it('a merged follow-up takes over: the next edit follows it up, not the task it followed', async () => {
    const { d, t1 } = await mergedOnV1()
    await edit(d, 1, V2)
    const t2 = (await tasks()).find((x) => x.id !== t1.id)!
    await land(t2, 'timeout.ts', 'export const timeoutMs = 10000\n')
    const { impact } = await edit(d, 2, V3)
    expect(impact.followUpTaskIds).toHaveLength(1)
    const t3 = (await tasks()).at(-1)!
    expect(t3.title).toBe('Follow up T-2 for D-1 v3: Follow up T-1 for D-1 v2: Search timeout')
    // Back to v1: the base branch has T-2's code (v2), so T-3 stays and is carried; T-1 is not concerned.
    const back = await revert(d, 3, 1)
    expect(back.impact.obsoleteFollowUps).toBeUndefined()
    expect(back.impact.followUpTaskIds).toBeUndefined()
    expect(await get(t3)).toMatchObject({ status: 'todo', title: expect.stringContaining('Follow up T-2 for D-1 v4') })
  }, 60_000)
})

describe('follow-ups of a merged task (followUps: offer)', () => {
  it('edit, take the offer, edit, revert: one follow-up, then offered for cancellation', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, followUps: 'offer' })
    const { d, t1 } = await mergedOnV1()
    const first = await edit(d, 1, V2)
    expect(first.impact.mergedTasks?.map((m) => m.key)).toEqual(['T-1'])
    // Offered and not taken: the merged task is flagged (its link is behind, nothing carries the change).
    expect((await get(t1)).flagged).toBe(true)
    const t2 = await t.core.invoke('tasks.followUp', { taskId: t1.id, decisionId: d.id })
    expect((await get(t1)).flagged).toBe(false)

    const second = await edit(d, 2, V3)
    expect(second.impact.mergedTasks).toBeUndefined()
    await expect(t.core.invoke('tasks.followUp', { taskId: t1.id, decisionId: d.id })).rejects.toMatchObject({
      code: 'invalid_transition',
    })

    const third = await revert(d, 3, 1)
    expect(third.impact.mergedTasks).toBeUndefined()
    expect(third.impact.obsoleteFollowUps).toEqual([
      expect.objectContaining({ taskId: t2.id, key: 'T-2', cancelled: false }),
    ])
    expect((await tasks()).map((x) => [x.key, x.status])).toEqual([
      ['T-1', 'accepted'],
      ['T-2', 'todo'],
    ])
  }, 60_000)
})
