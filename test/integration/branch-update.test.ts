/**
 * Updating a task's branch (issue 30), in a real repository with real task trees and the scripted model server:
 * tasks.updateBranch brings main into the tree (merge, or rebase per the workspace setting); a delivered or accepted
 * task is delivered again on the new head, its old reports stay on the commit they checked and no longer count; a
 * conflict is left in the tree for the assignee's automatic turn, which names the files and both sides; a head that
 * still holds conflict markers is refused with conflict_markers.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { memberScripts, type MemberScripts } from '../fixtures/member-scripts'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let ivy: Member
let tess: Member
let replies: MemberScripts

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)
const search = (lines: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => lines[i] ?? `line ${i}`).join('\n') + '\n'
const get = (task: Task) => t.core.invoke('tasks.get', { taskId: task.id })
const codes = (task: Task) => task.readiness.reasons.map((r) => r.code)

beforeEach(async () => {
  replies = memberScripts(() => ({ text: 'noted' }))
  t = await workspaceWithTeam({
    isolation: 'worktree',
    core: { provider: { maxRetries: 0 }, taskStartTurns: false },
    server: { unscripted: replies.unscripted },
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ws = t.ws
  mkdirSync(join(t.repoDir, 'src'))
  writeFileSync(join(t.repoDir, 'src', 'search.js'), search())
  git(t.repoDir, 'add', '-A')
  git(t.repoDir, 'commit', '-qm', 'search')
  ivy = await t.member('Ivy', { role: 'implementer' })
  tess = await t.member('Tess', { role: 'tester' })
  // Automatic turns for stale reports are not what these tests look at (Tess's would run on the scripted model).
  await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
})
afterEach(() => t.cleanup())

/** A task started, its files written and committed in its tree, delivered, with a passing test report on it. */
async function delivered(title: string, files: Record<string, string>): Promise<Task> {
  const created = await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title,
    assigneeId: ivy.id,
    requiredReports: ['test'],
  })
  const task = await t.core.invoke('tasks.setStatus', { taskId: created.id, status: 'in_progress' })
  const dir = treeOf(task)
  for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', title)
  const done = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  await t.core.invoke('reports.submit', {
    taskId: task.id,
    authorId: tess.id,
    kind: 'test',
    verdict: 'pass',
    artifact: { commit: done.artifact!.commit! },
    summary: 'tests pass',
    claims: [],
  })
  const ready = await get(task)
  expect(ready.readiness.ready).toBe(true)
  const main = git(t.repoDir, 'rev-parse', 'main')
  await expect.poll(async () => (await get(task)).base).toMatchObject({ commit: done.artifact!.commit, head: main })
  return ready
}

/** The user's own commit on main. */
function mainCommit(file: string, content: string, message = `main: ${file}`): string {
  writeFileSync(join(t.repoDir, file), content)
  git(t.repoDir, 'add', '-A')
  git(t.repoDir, 'commit', '-qm', message)
  return git(t.repoDir, 'rev-parse', 'main')
}

describe('a clean update', () => {
  it('moves an accepted task’s head onto main: delivered again there, its old report kept on the old commit', async () => {
    const task = await delivered('Bullets', { 'src/search.js': search({ 10: 'bullets(search())' }) })
    const old = task.artifact!.commit!
    await t.core.invoke('tasks.accept', { taskId: task.id })
    const main = mainCommit('notes.md', 'hotfix\n')
    await expect.poll(async () => codes(await get(task))).toEqual(['base_moved'])

    const r = await t.core.invoke('tasks.updateBranch', { taskId: task.id })
    expect(r).toMatchObject({ outcome: 'updated', mode: 'merge', baseBranch: 'main', baseHead: main, from: old })
    expect(r.head).not.toBe(old)
    const tree = treeOf(task)
    expect(git(tree, 'rev-parse', 'HEAD')).toBe(r.head)
    // Both parents: main's head and the task's own commit; the merge is by the user (the checkout's identity).
    expect(git(tree, 'rev-list', '--parents', '-n1', 'HEAD').split(' ').slice(1).sort()).toEqual([old, main].sort())
    expect(git(t.repoDir, 'rev-parse', `refs/heads/${task.branch}`)).toBe(r.head)

    // Accepted before: delivered again, on the new head, and not ready until verified there.
    const after = await get(task)
    expect(after.status).toBe('delivered')
    expect(after.artifact?.commit).toBe(r.head)
    expect(after.readiness.ready).toBe(false)
    expect(codes(after)).toContain('evidence_stale')
    await rejectsWith(t.core.invoke('tasks.accept', { taskId: task.id }), 'evidence_stale')
    // The report on the old head stays attached to the commit it checked, for the record.
    const reports = await t.core.invoke('reports.list', { taskId: task.id })
    expect(reports.map((x) => x.artifact.commit)).toEqual([old])

    // The base check runs again on the new head: it lands as checked now; a report on it makes the task ready.
    await expect.poll(async () => (await get(task)).base).toMatchObject({ commit: r.head, landsAsChecked: true })
    await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: r.head },
      summary: 'tests pass on the updated head',
      claims: [],
    })
    expect((await get(task)).readiness.ready).toBe(true)
  })

  it('rebases instead when the workspace says so, and says when the tree is current', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, updates: 'rebase' })
    expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).updates).toBe('rebase')
    const created = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Docs', assigneeId: ivy.id })
    const task = await t.core.invoke('tasks.setStatus', { taskId: created.id, status: 'in_progress' })
    const tree = treeOf(task)
    writeFileSync(join(tree, 'docs.md'), 'docs\n')
    git(tree, 'add', '-A')
    git(tree, 'commit', '-qm', 'docs')
    const main = mainCommit('notes.md', 'hotfix\n')

    const r = await t.core.invoke('tasks.updateBranch', { taskId: task.id })
    expect(r).toMatchObject({ outcome: 'updated', mode: 'rebase' })
    // A rebase: the task's one commit replayed on main's head, no merge commit.
    expect(git(tree, 'rev-parse', 'HEAD~1')).toBe(main)
    expect(git(tree, 'rev-list', '--merges', `${main}..HEAD`)).toBe('')
    expect(git(t.repoDir, 'rev-parse', `refs/heads/${task.branch}`)).toBe(r.head)
    expect((await get(task)).status).toBe('in_progress')

    const again = await t.core.invoke('tasks.updateBranch', { taskId: task.id })
    expect(again).toMatchObject({ outcome: 'current', head: r.head })
    await rejectsWith(
      t.core.invoke('workspaces.update', { workspaceId: ws.id, updates: 'squash' as 'merge' }),
      'invalid_params',
    )
  })
})

describe('a conflicting update', () => {
  it('is left in the tree for the assignee’s automatic turn, which names the files and both sides', async () => {
    const task = await delivered('Bullets', { 'src/search.js': search({ 5: 'from the task' }) })
    mainCommit('src/search.js', search({ 5: 'from main' }), 'hotfix search')
    await expect.poll(async () => codes(await get(task))).toEqual(['merge_conflict'])
    replies.script('Ivy', { text: 'I will resolve it' })
    const idle = sessionState(t.core, ivy.id, 'idle', { timeoutMs: 15_000 })

    const r = await t.core.invoke('tasks.updateBranch', { taskId: task.id, assignee: true })
    expect(r.outcome).toBe('conflict')
    expect(r.conflicts).toEqual([
      {
        file: 'src/search.js',
        base: [expect.stringContaining('hotfix search')],
        task: [expect.stringContaining('Bullets')],
      },
    ])
    expect(r.turn).toMatchObject({ memberId: ivy.id, memberName: 'Ivy' })
    // The tree is in the merge, for the assignee to resolve: markers and MERGE_HEAD.
    const tree = treeOf(task)
    expect(existsSync(join(tree, '.git', 'MERGE_HEAD'))).toBe(true)
    expect(readFileSync(join(tree, 'src', 'search.js'), 'utf8')).toContain('<<<<<<<')

    // The automatic turn ran on the model: its message names the file and both sides' commits.
    await idle
    const steps: Step[] = (await t.core.invoke('sessions.get', { memberId: ivy.id })).steps
    const byConcord = steps.filter((s) => s.origin === 'concord')
    expect(byConcord).toHaveLength(1)
    expect(byConcord[0]!.text).toContain('src/search.js')
    expect(byConcord[0]!.text).toContain('hotfix search')
    expect(byConcord[0]!.text).toContain('Bullets')
    const asked = JSON.stringify(replies.asked.get('Ivy')?.at(-1)?.body.messages)
    expect(asked).toContain('conflicts in src/search.js')

    // A head that still holds the markers is refused: delivered, and updated.
    git(tree, 'commit', '-qam', 'resolved in name only')
    const refused = await rejectsWith(
      t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' }),
      'conflict_markers',
    )
    expect(refused.details).toMatchObject({ files: ['src/search.js'] })
    await rejectsWith(t.core.invoke('tasks.updateBranch', { taskId: task.id }), 'conflict_markers')

    // Resolved for real: delivered on the merge, which lands as checked.
    writeFileSync(join(tree, 'src', 'search.js'), search({ 5: 'from main and the task' }))
    git(tree, 'commit', '-qam', 'resolved')
    const done = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await expect
      .poll(async () => (await get(done)).base)
      .toMatchObject({
        commit: done.artifact!.commit,
        conflicts: null,
        landsAsChecked: true,
      })
  })

  it('with no assignee to take it, changes nothing and fails with merge_conflict', async () => {
    const task = await delivered('Bullets', { 'src/search.js': search({ 5: 'from the task' }) })
    await t.core.invoke('tasks.update', { taskId: task.id, assigneeId: null })
    mainCommit('src/search.js', search({ 5: 'from main' }))
    const tree = treeOf(task)
    const before = git(tree, 'rev-parse', 'HEAD')
    const err = await rejectsWith(t.core.invoke('tasks.updateBranch', { taskId: task.id }), 'merge_conflict')
    expect(err.details).toMatchObject({ paths: ['src/search.js'] })
    expect(git(tree, 'rev-parse', 'HEAD')).toBe(before)
    expect(existsSync(join(tree, '.git', 'MERGE_HEAD'))).toBe(false)
    expect(git(tree, 'status', '--porcelain')).toBe('')
  })
})
