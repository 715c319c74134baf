/**
 * A merged task's Changes (issue 31, "a diff that forgets"): after the merge the task's head is in the base branch, so
 * comparing it with where it meets the base branch now gave "0 files changed, 6c30177d → 6c30177d". The diff shows
 * what was merged — the task's own change against the base it was merged on — whatever the strategy, and says so.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let ivy: Member

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const worktreeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree', memberDefaults: () => ({ authority: 'proposer' }) })
  ws = t.ws
  ivy = await t.member('Ivy')
})
afterEach(() => t.cleanup())

/**
 * A task started from main's head, one commit in its tree, delivered and accepted. `meanwhile` runs after the task's
 * commit: when it moves main (returning the new head), the tree brings main in before delivering, as an update does,
 * so the accepted commit is what lands (main only receives the tree that was accepted, issue 30).
 */
async function acceptedTask(title: string, file: string, content: string, meanwhile?: () => string): Promise<Task> {
  const task = await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title,
    assigneeId: ivy.id,
    requiredReports: [],
  })
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  const dir = worktreeOf(task)
  writeFileSync(join(dir, file), content)
  git(dir, 'add', '-A')
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', title)
  if (meanwhile) {
    meanwhile()
    git(dir, 'fetch', '-q', t.repoDir, 'main')
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'merge', '-q', '--no-edit', 'FETCH_HEAD')
  }
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  return t.core.invoke('tasks.accept', { taskId: task.id })
}

/** The user's own commit on main, in their checkout. */
function userCommit(file: string, content: string): string {
  writeFileSync(join(t.repoDir, file), content)
  git(t.repoDir, 'add', '-A')
  git(t.repoDir, 'commit', '-qm', `user: ${file}`)
  return git(t.repoDir, 'rev-parse', 'HEAD')
}

describe('a merged task’s diff', () => {
  for (const strategy of ['merge', 'squash', 'ff-only'] as const) {
    it(`shows what a ${strategy} landed, against the base it was merged on`, async () => {
      // main moves on after the task started (its tree brings it in before delivering; a fast-forward needs main
      // under the task's commit as it is).
      let onto = git(t.repoDir, 'rev-parse', 'HEAD')
      const moveMain = () => (onto = userCommit('notes.md', 'mine\n'))
      const task = await acceptedTask(
        'Search timeout',
        'search.ts',
        'export const timeoutMs = 30_000\n',
        strategy === 'ff-only' ? undefined : moveMain,
      )
      const commit = task.artifact!.commit!
      const merged = await t.core.invoke('tasks.merge', { taskId: task.id, strategy })
      // ...and after it: the diff still shows the task's change, not main's later commits.
      userCommit('later.md', 'after the merge\n')

      const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
      expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(['added search.ts'])
      expect(diff.head).toBe(commit)
      // The branch's change as it was merged: from where it met main at the merge.
      expect(diff.base).toBe(git(t.repoDir, 'merge-base', onto, commit))
      expect(diff.merged).toEqual({ commit: merged.merged!.commit, onto, branch: 'main' })
    })
  }

  it('before a merge the diff is the branch’s own change and says nothing of a merge', async () => {
    const task = await acceptedTask('Search timeout', 'search.ts', 'export const timeoutMs = 30_000\n')
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.files.map((f) => f.path)).toEqual(['search.ts'])
    expect(diff.merged).toBeUndefined()
  })
})
