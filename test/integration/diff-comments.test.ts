/**
 * Comments on a task's diff (issue 33, the review loop): drafts on a line and a range, sent to the assignee as one
 * message with file:line context through the same path a message from the user takes, recorded on the task (the card's
 * open count), resolved when a later delivery changes the lines; a draft can be deleted; bad input has stable codes.
 * Real SQLite file, real git repository, the scripted model server.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task } from '../../shared/schemas'
import { oldHunks, overlaps } from '../../electron/main/harness/tasks/diff-comments'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ivy: Member

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const commit = (dir: string, msg: string) => {
  git(dir, 'add', '-A')
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', msg)
}
const lines = (n: number, edit: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n'

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ivy = await t.member('Ivy')
  // The base has a ten-line file the task changes.
  writeFileSync(join(t.repoDir, 'search.js'), lines(10))
  commit(t.repoDir, 'base: search.js')
})
afterEach(() => t.cleanup())

async function startedTask(): Promise<{ task: Task; tree: string }> {
  const task = await t.core.invoke('tasks.create', {
    workspaceId: t.ws.id,
    title: 'Search timeout',
    assigneeId: ivy.id,
    requiredReports: [],
  })
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  const tree = join(t.dataDir, 'worktrees', t.ws.id, task.key)
  writeFileSync(join(tree, 'search.js'), lines(10, { 3: 'const timeout = 5', 6: 'retry()' }))
  commit(tree, 'timeout and retry')
  return { task, tree }
}

describe('comments on a task’s diff', () => {
  it('adds drafts on a line and a range, deletes one, sends the rest as one message, resolves on a later delivery', async () => {
    const { task, tree } = await startedTask()
    const head = git(tree, 'rev-parse', 'HEAD')

    const one = await t.core.invoke('diffComments.add', {
      taskId: task.id,
      path: 'search.js',
      startLine: 3,
      body: 'Make the timeout a setting',
    })
    expect(one).toMatchObject({ state: 'draft', startLine: 3, endLine: 3, side: 'new', commit: head })
    expect(one.quoted).toBe('const timeout = 5')
    const range = await t.core.invoke('diffComments.add', {
      taskId: task.id,
      path: 'search.js',
      startLine: 5,
      endLine: 7,
      body: 'Retry needs a limit',
    })
    expect(range.quoted).toBe('line 5\nretry()\nline 7')
    const dropped = await t.core.invoke('diffComments.add', {
      taskId: task.id,
      path: 'search.js',
      startLine: 1,
      body: 'never mind',
    })
    expect(await t.core.invoke('diffComments.delete', { commentId: dropped.id })).toEqual({ deleted: true })
    expect((await t.core.invoke('diffComments.list', { taskId: task.id })).map((c) => c.id)).toEqual([one.id, range.id])

    // Sent through the member's session: the turn runs as for any message, and the model sees both contexts.
    t.server.enqueue({ text: 'On it.' })
    const idle = waitForEvent(
      t.core,
      (e) => e.event === 'session.state' && e.payload.session.memberId === ivy.id && e.payload.session.state === 'idle',
      10_000,
      'Ivy idle after the comments',
    )
    const sent = await t.core.invoke('diffComments.send', { taskId: task.id })
    expect(sent.sent).toBe(2)
    const [req] = await t.server.waitForRequests(1)
    const msgs = req!.body.messages as { role: string; content: unknown }[]
    const user = msgs.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))
    const text = user.at(-1)!
    expect(text).toContain('search.js:3')
    expect(text).toContain('search.js:5-7')
    expect(text).toContain('> const timeout = 5')
    expect(text).toContain('> retry()')
    expect(text).toContain('Retry needs a limit')
    await idle
    const session = await t.core.invoke('sessions.get', { memberId: ivy.id, taskId: task.id })
    expect(session.steps.filter((s) => s.kind === 'user')).toHaveLength(1)
    expect((await t.core.invoke('diffComments.list', { taskId: task.id })).map((c) => c.state)).toEqual([
      'sent',
      'sent',
    ])
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).openComments).toBe(2)
    await rejectsWith(t.core.invoke('diffComments.delete', { commentId: one.id }), 'invalid_transition')
    await rejectsWith(t.core.invoke('diffComments.send', { taskId: task.id }), 'invalid_transition')

    // A later delivery changes line 3 only: that comment is resolved, the range stays open.
    writeFileSync(join(tree, 'search.js'), lines(10, { 3: 'const timeout = settings.timeout', 6: 'retry()' }))
    commit(tree, 'timeout from settings')
    const resolved = waitForEvent(
      t.core,
      (e) => e.event === 'diffComments.changed' && e.payload.comments.some((c) => c.state === 'resolved'),
      10_000,
      'a comment resolved by the delivery',
    )
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await resolved
    const after = await t.core.invoke('diffComments.list', { taskId: task.id })
    const delivered = git(tree, 'rev-parse', 'HEAD')
    expect(after.map((c) => [c.startLine, c.state, c.resolvedCommit])).toEqual([
      [3, 'resolved', delivered],
      [5, 'sent', null],
    ])
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).openComments).toBe(1)
  })

  it('refuses bad input with stable codes', async () => {
    const { task } = await startedTask()
    const add = (p: Record<string, unknown>) =>
      t.core.invoke('diffComments.add', { taskId: task.id, path: 'search.js', startLine: 1, body: 'x', ...p })
    await rejectsWith(add({ path: 'README.md' }), 'path_not_in_diff')
    await rejectsWith(add({ path: 'nowhere.js' }), 'path_not_in_diff')
    await rejectsWith(add({ startLine: 11 }), 'line_out_of_range')
    await rejectsWith(add({ startLine: 9, endLine: 12 }), 'line_out_of_range')
    await rejectsWith(add({ startLine: 5, endLine: 4 }), 'line_out_of_range')
    await rejectsWith(add({ startLine: 0 }), 'invalid_params')
    await rejectsWith(add({ body: '  ' }), 'invalid_params')
    const missing = task.id.replace(/t\d+$/, 't999')
    await rejectsWith(add({ taskId: missing }), 'not_found')
    await rejectsWith(t.core.invoke('diffComments.list', { taskId: missing }), 'not_found')
    await rejectsWith(t.core.invoke('diffComments.send', { taskId: missing }), 'not_found')
    await rejectsWith(
      t.core.invoke('diffComments.delete', { commentId: task.id.replace(/t\d+$/, 'k999') }),
      'not_found',
    )
    // Nothing to send yet.
    await rejectsWith(t.core.invoke('diffComments.send', { taskId: task.id }), 'invalid_transition')
    expect(await t.core.invoke('diffComments.list', { taskId: task.id })).toEqual([])
  })
})

describe('which hunks change a comment’s lines', () => {
  it('reads -U0 hunk headers and counts rewrites, removals and insertions inside the range', () => {
    const patch = '@@ -3 +3 @@\n-a\n+b\n@@ -8,2 +7,0 @@\n-x\n-y\n@@ -12,0 +11,2 @@\n+p\n+q\n'
    expect(oldHunks(patch)).toEqual([
      { start: 3, count: 1 },
      { start: 8, count: 2 },
      { start: 12, count: 0 },
    ])
    expect(overlaps({ start: 3, count: 1 }, 3, 3)).toBe(true)
    expect(overlaps({ start: 3, count: 1 }, 4, 6)).toBe(false)
    expect(overlaps({ start: 8, count: 2 }, 5, 8)).toBe(true)
    expect(overlaps({ start: 8, count: 2 }, 10, 12)).toBe(false)
    // Lines inserted after line 12: between 12 and 13 changes 12..13, not 12 alone nor 13..14.
    expect(overlaps({ start: 12, count: 0 }, 12, 13)).toBe(true)
    expect(overlaps({ start: 12, count: 0 }, 12, 12)).toBe(false)
    expect(overlaps({ start: 12, count: 0 }, 13, 14)).toBe(false)
  })
})
