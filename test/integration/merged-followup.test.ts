/**
 * A decision edited after its task was merged (issue 22, Flow): the merged task stays accepted and merged (no
 * revoked acceptance, no flag), and a follow-up task linked to the decision's new version is created for the
 * same assignee; the preview says so.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let ws: Workspace
let ivy: Member

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

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

async function mergedTask(decisionId: string): Promise<Task> {
  const task = await startedTask(t.core, {
    workspaceId: ws.id,
    title: 'Search timeout',
    assigneeId: ivy.id,
    decisionIds: [decisionId],
    requiredReports: [],
  })
  writeFileSync(join(treeOf(task), 'timeout.ts'), 'export const timeoutMs = 5000\n')
  git(treeOf(task), 'add', '-A')
  git(treeOf(task), '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'timeout')
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  await t.core.invoke('tasks.accept', { taskId: task.id })
  return t.core.invoke('tasks.merge', { taskId: task.id })
}

describe('a decision changed after its task was merged', () => {
  it('keeps the merged task merged and creates a follow-up linked to the new version, assigned like the original', async () => {
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const t1 = await mergedTask(d.id)
    expect(t1.merged).not.toBeNull()
    const preview = await t.core.invoke('decisions.previewImpact', {
      decisionId: d.id,
      statement: 'Web search gives up after 10 s.',
    })
    expect(preview.counts).toMatchObject({ tasks: 0, acceptanceRevoked: 0 })
    expect(preview.mergedTasks).toEqual([
      {
        taskId: t1.id,
        key: 'T-1',
        text: 'T-1 is merged: the base branch has its code; a follow-up task will be created',
        followUp: 'create',
      },
    ])

    const { impact } = await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'Web search gives up after 10 s.',
      reason: 'slow providers',
    })
    expect(impact.counts).toMatchObject({ tasks: 0, acceptanceRevoked: 0 })
    const after = await t.core.invoke('tasks.get', { taskId: t1.id })
    expect(after).toMatchObject({ status: 'accepted', flag: null, merged: t1.merged })
    const tasks = await t.core.invoke('tasks.list', { workspaceId: ws.id })
    expect(tasks).toHaveLength(2)
    const follow = tasks.find((x) => x.id !== t1.id)!
    expect(follow).toMatchObject({
      status: 'todo',
      assigneeId: ivy.id,
      title: 'Follow up T-1 for D-1 v2: Search timeout',
      flag: null,
    })
    expect(follow.links).toMatchObject([{ decisionId: d.id, pinnedVersion: 2 }])
    expect(follow.spec).toContain('T-1 was merged before D-1 changed to v2')
    expect(follow.spec).toContain('Web search gives up after 10 s.')
    expect(impact.followUpTaskIds).toEqual([follow.id])
  })

  it('with the setting followUps: offer, creates nothing and offers it: tasks.followUp creates it once', async () => {
    const settings = await t.core.invoke('workspaces.update', { workspaceId: ws.id, followUps: 'offer' })
    expect(settings.followUps).toBe('offer')
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const t1 = await mergedTask(d.id)
    const offered = [
      {
        taskId: t1.id,
        key: 'T-1',
        text: 'T-1 is merged: the base branch has its code; a follow-up task is offered',
        followUp: 'offer',
      },
    ]
    const preview = await t.core.invoke('decisions.previewImpact', {
      decisionId: d.id,
      statement: 'Web search gives up after 10 s.',
    })
    expect(preview.mergedTasks).toEqual(offered)
    const { impact } = await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'Web search gives up after 10 s.',
      reason: 'slow providers',
    })
    expect(impact.followUpTaskIds).toBeUndefined()
    expect(impact.mergedTasks).toEqual(offered)
    expect(await t.core.invoke('tasks.list', { workspaceId: ws.id })).toHaveLength(1)

    const follow = await t.core.invoke('tasks.followUp', { taskId: t1.id, decisionId: d.id })
    expect(follow).toMatchObject({
      status: 'todo',
      assigneeId: ivy.id,
      title: 'Follow up T-1 for D-1 v2: Search timeout',
    })
    expect(follow.links).toMatchObject([{ decisionId: d.id, pinnedVersion: 2 }])
    expect(
      t.events.filter((e) => e.event === 'task.changed').map((e) => (e.payload as { task: Task }).task.key),
    ).toContain('T-2')
    // Taken: a second one is refused, and the next preview offers nothing for this version.
    await expect(t.core.invoke('tasks.followUp', { taskId: t1.id, decisionId: d.id })).rejects.toMatchObject({
      code: 'invalid_transition',
    })
    const again = await t.core.invoke('decisions.previewImpact', {
      decisionId: d.id,
      statement: 'Web search gives up after 10 s.',
    })
    expect(again.mergedTasks).toBeUndefined()
    expect(await t.core.invoke('tasks.list', { workspaceId: ws.id })).toHaveLength(2)
  })
})
