/**
 * tasks.merge: a decider lands an accepted task's accepted commit in the base branch of the user's checkout — or
 * Concord says exactly why it cannot and changes nothing (no MERGE_HEAD, no half-merged file).
 */
import type { ParsedParams } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { Task } from '../../../shared/schemas'
import { removeWorktree, resolveCommit } from '../repo/git-repo'
import { runOwnGit } from '../runtime/tools/git'
import { actorOf, requireDecider, type Ctx } from './context'
import type { Harness } from './harness'
import { makeKey, now } from './ids'
import { toTask } from './mappers'
import { taskRow } from './tasks'
import { workspaceSettings } from './workspace-settings'

/** One merge at a time per repository: git itself would refuse the second while the first holds the index. */
const merging = new Set<string>()

export async function mergeTask(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.merge'>): Promise<Task> {
  requireDecider(actorOf(ctx, p.actorId), 'merge tasks')
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  if (task.status !== 'accepted') throw new ApiError('invalid_transition', `${tk} is ${task.status}; only an accepted task can be merged`)
  const branch = ctx.store.branches.get(task.id)
  if (!branch) throw new ApiError('invalid_transition', `${tk} has no branch of its own (a shared workspace, or it was never started here): there is nothing to merge`)
  if (branch.merged_commit) throw new ApiError('invalid_transition', `${tk} was already merged (${branch.merged_commit.slice(0, 10)})`)
  const commit = task.artifact_commit
  if (!commit) throw new ApiError('invalid_transition', `${tk} was accepted without a commit; there is nothing to merge`)
  const settings = workspaceSettings(ctx)
  const repo = h.workspace(ctx.wsId).repoPath
  if (merging.has(repo)) throw new ApiError('merge_blocked', 'another merge into this repository is running; try again when it has finished')
  merging.add(repo)
  try {
    await checkCheckout(repo, settings.baseBranch!)
    const strategy = p.strategy ?? 'merge'
    await checkMergeable(repo, commit, strategy, tk)
    const message = `${strategy === 'squash' ? '' : 'Merge '}${tk}: ${task.title} (${branch.branch})`
    await land(repo, commit, strategy, message)
    const merged = (await resolveCommit(repo, 'HEAD'))!
    await removeWorktree(repo, branch.worktree, settings.deleteMergedBranches ? branch.branch : undefined)
    ctx.store.transaction(() => {
      ctx.store.branches.setMerged(task.id, merged, now())
      ctx.store.log.appendEvent('task.merged', { taskId: task.id, commit, merged, strategy, branchDeleted: settings.deleteMergedBranches }, now())
    })
  } finally {
    merging.delete(repo)
  }
  const dto = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(task.id)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  return dto
}

/** Your checkout must be on the base branch with nothing uncommitted in tracked files. */
async function checkCheckout(repo: string, baseBranch: string): Promise<void> {
  const current = (await runOwnGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFailure: true })).stdout.trim()
  if (current !== baseBranch) {
    throw new ApiError('merge_blocked', `your checkout is on ${current || 'a detached HEAD'}, not on the base branch ${baseBranch}: switch to ${baseBranch} and merge again`, {
      reason: 'wrong_branch',
    })
  }
  if ((await runOwnGit(repo, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'], { allowFailure: true })).code === 0) {
    throw new ApiError('merge_blocked', 'your checkout is in the middle of a merge: finish or abort it first', { reason: 'merge_in_progress' })
  }
  const status = await runOwnGit(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=dirty'])
  const dirty = status.stdout
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
  if (dirty.length) {
    throw new ApiError(
      'merge_blocked',
      `your checkout has uncommitted changes: ${dirty.slice(0, 20).join(', ')}${dirty.length > 20 ? ` and ${dirty.length - 20} more` : ''}; commit or stash them and merge again`,
      {
        reason: 'dirty',
        files: dirty,
      },
    )
  }
}

/** Conflicts are found without touching the checkout (git merge-tree), so a refused merge leaves nothing behind. */
async function checkMergeable(repo: string, commit: string, strategy: string, tk: string): Promise<void> {
  if (strategy === 'ff-only') {
    const ff = await runOwnGit(repo, ['merge-base', '--is-ancestor', 'HEAD', commit], { allowFailure: true })
    if (ff.code !== 0) throw new ApiError('merge_blocked', `${tk} cannot be fast-forwarded: the base branch has moved on; use strategy "merge" or "squash"`, { reason: 'not_fast_forward' })
    return
  }
  const r = await runOwnGit(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', commit], { allowFailure: true })
  if (r.code === 0) return
  const lines = r.stdout.split('\n').filter((l) => l.length > 0)
  if (r.code === 1 && lines.length > 1) {
    const paths = [...new Set(lines.slice(1))]
    throw new ApiError('merge_conflict', `${tk} conflicts with the base branch in ${paths.join(', ')}; nothing was changed. Resolve on the task's branch (ask its assignee) and merge again`, { paths })
  }
  throw new ApiError('merge_blocked', `git could not check the merge of ${tk}: ${r.stderr.trim() || `exit code ${r.code}`}`, { reason: 'git' })
}

async function land(repo: string, commit: string, strategy: string, message: string): Promise<void> {
  const run = async (args: string[]) => {
    const r = await runOwnGit(repo, args, { allowFailure: true })
    if (r.code !== 0) {
      // Put the checkout back exactly as it was: no MERGE_HEAD, no half-merged files.
      await runOwnGit(repo, ['merge', '--abort'], { allowFailure: true })
      await runOwnGit(repo, ['reset', '--quiet', '--merge'], { allowFailure: true })
      throw new ApiError('merge_blocked', `git refused the merge: ${(r.stderr || r.stdout).trim() || `exit code ${r.code}`}; nothing was changed`, { reason: 'git' })
    }
  }
  if (strategy === 'ff-only') return run(['merge', '--ff-only', '--quiet', commit])
  if (strategy === 'squash') {
    await run(['merge', '--squash', '--quiet', commit])
    return run(['commit', '--quiet', '--no-verify', '-m', message])
  }
  return run(['merge', '--no-ff', '--no-edit', '--quiet', '-m', message, commit])
}
