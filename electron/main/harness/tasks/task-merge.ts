/**
 * tasks.merge: a decider lands an accepted task's accepted commit in the base branch of the user's checkout — or
 * Concord says exactly why it cannot and changes nothing (no MERGE_HEAD, no half-merged file, no file of yours that
 * git does not track overwritten). No program named by the repository's config runs (runOwnGit: hooks, merge
 * drivers, gpg for merge.verifySignatures). The merge is recorded while it runs (task_branches.merging), so one that
 * a crash cut short is found and reported by the next start and the next merge.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task } from '../../../../shared/schemas'
import { identityEnv, resolveIdentity, type GitIdentity } from '../../repo/git-identity'
import { removeTree, resolveCommit, resolveCommitTree } from '../../repo/git-repo'
import { stopTreeRuns } from '../workspace/tree-runs'
import { runOwnGit } from '../../platform/own-git'
import { actorOf, requireDecider, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { interruptedMerges, leftovers } from '../workspace/merge-recovery'
import { addedOver, checkCheckout, checkMergeable, readCheckout, trialMerge } from './merge-checks'
import { keepUndoneState, refreshHead } from '../workspace/task-branches'
import { workspaceSettings } from '../workspace/workspace-settings'
import { scheduleBaseCheck } from '../workspace/base-moves'

/** One merge at a time per repository: git itself would refuse the second while the first holds the index. */
const merging = new Set<string>()

/** What a merge attempt came to: the task as merged (or already queued), or why verified merges must queue it. */
export type MergeOutcome = { task: Task } | { queueBecause: string }

type TaskRow = ReturnType<typeof taskRow>

/** One merge under way: the task, its branch and commit, how it lands, and whether the queue asked for it. */
interface Merge {
  repo: string
  task: TaskRow
  tk: string
  branch: NonNullable<ReturnType<Ctx['store']['branches']['get']>>
  commit: string
  strategy: NonNullable<ParsedParams<'tasks.merge'>['strategy']>
  settings: ReturnType<typeof workspaceSettings>
  verified: boolean
  fromQueue: boolean
}

/**
 * Lands the accepted task, or — with verified merges and not from the queue itself — says why it must be queued
 * instead (tasks.merge's front door, mergeTask in merge-queue.ts, queues it).
 */
export async function landAccepted(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.merge'>,
  /** fromQueue: the merge queue lands a task it verified; never answered with queueBecause. */
  opts: { fromQueue?: boolean } = {},
): Promise<MergeOutcome> {
  requireDecider(actorOf(ctx, p.actorId), 'merge tasks')
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  const { branch, commit } = mergeable(ctx, task, tk)
  const settings = workspaceSettings(ctx)
  const verified = settings.merges === 'verified'
  const fromQueue = Boolean(opts.fromQueue)
  // Verified merges: a task already queued stays where it is; one behind others in the queue joins it at the end.
  if (verified && !fromQueue) {
    const queue = ctx.store.mergeQueue.list()
    if (queue.some((q) => q.task_id === task.id)) return { task: toTask(ctx.wsId, ctx.store, task) }
    if (queue.length) return { queueBecause: `behind ${queue.length} queued merge${queue.length > 1 ? 's' : ''}` }
  }
  const repo = h.workspace(ctx.wsId).repoPath
  if (merging.has(repo))
    throw new ApiError('merge_blocked', 'another merge into this repository is running; try again when it has finished')
  merging.add(repo)
  const m: Merge = { repo, task, tk, branch, commit, strategy: p.strategy ?? 'merge', settings, verified, fromQueue }
  const landed = await mergeOne(h, ctx, m).finally(() => merging.delete(repo))
  if ('queueBecause' in landed) return landed
  // Once more now that the merge is recorded (a check that finds nothing new asks git nothing).
  void scheduleBaseCheck(h, ctx.wsId)
  const dto = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(task.id)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  return { task: dto }
}

/** An accepted task with a branch of its own not merged yet, and the commit that was accepted. */
function mergeable(ctx: Ctx, task: TaskRow, tk: string): { branch: Merge['branch']; commit: string } {
  if (task.status !== 'accepted')
    throw new ApiError('invalid_transition', `${tk} is ${task.status}; only an accepted task can be merged`)
  const branch = ctx.store.branches.get(task.id)
  if (!branch)
    throw new ApiError(
      'invalid_transition',
      `${tk} has no branch of its own (a shared workspace, or it was never started here): there is nothing to merge`,
    )
  if (branch.merged_commit)
    throw new ApiError('invalid_transition', `${tk} was already merged (${branch.merged_commit.slice(0, 10)})`)
  const commit = task.artifact_commit
  if (!commit)
    throw new ApiError('invalid_transition', `${tk} was accepted without a commit; there is nothing to merge`)
  return { branch, commit }
}

/** The merge, while this repository's merge lock is held: checked, landed and recorded, or why it must queue. */
async function mergeOne(h: Harness, ctx: Ctx, m: Merge): Promise<{ merged: string } | { queueBecause: string }> {
  await interruptedMerges(ctx, m.repo, true)
  // The task's branch as its tree has it now, brought into your repository (the tree is its own repository).
  await refreshHead(h, ctx, m.task.id).catch(() => undefined)
  const checked = await checkBeforeLanding(m)
  if ('queueBecause' in checked) return checked
  const message = `${m.strategy === 'squash' ? '' : 'Merge '}${m.tk}: ${m.task.title} (${m.branch.branch})`
  const before = (await resolveCommit(m.repo, 'HEAD'))!
  ctx.store.transaction(() =>
    ctx.store.branches.setMerging(m.task.id, JSON.stringify({ head: before, commit: m.commit, at: now() })),
  )
  try {
    await land(m.repo, m.commit, m.strategy, message, before, checked.identity)
  } catch (err) {
    // Put back cleanly: nothing to report later. Else the record stays, and the next merge says what is left.
    if (!(err instanceof ApiError && typeof err.details === 'object' && err.details !== null && 'found' in err.details))
      ctx.store.transaction(() => ctx.store.branches.setMerging(m.task.id, null))
    throw err
  }
  return { merged: await recordLanded(h, ctx, m, before) }
}

/**
 * Read-only questions asked at once (each git call is a process start): the commit is here and its tree (the
 * repository's long-lived cat-file), the checkout's state, the trial merge, who the merge commit is by (kept while
 * your config is unchanged), and what the commit adds over HEAD (the files the merge adds when it lands the
 * commit's own tree). Their answers are read in the order the refusals are made.
 */
async function checkBeforeLanding(m: Merge): Promise<{ identity: GitIdentity | null } | { queueBecause: string }> {
  const { repo, commit, tk, settings } = m
  const [present, commitTree, checkout, trial, identity, adds] = await Promise.all([
    resolveCommit(repo, commit),
    resolveCommitTree(repo, commit),
    readCheckout(repo),
    trialMerge(repo, commit, m.strategy),
    resolveIdentity(repo),
    addedOver(repo, commit),
  ])
  if (present === null) {
    throw new ApiError(
      'merge_blocked',
      `the accepted commit ${commit.slice(0, 10)} of ${tk} is not in your repository (its tree did not bring it over); ask its assignee to deliver again`,
      {
        reason: 'missing_commit',
      },
    )
  }
  checkCheckout(checkout, settings.baseBranch!)
  try {
    await checkMergeable(repo, commit, trial, tk, m.verified, commitTree ?? '', adds)
  } catch (err) {
    // Verified: a merge that would land an unchecked tree is queued — updated, verified, then landed. A conflict is
    // refused as before (merge_conflict): its assignee updates the branch first (the card offers it).
    if (
      m.verified &&
      !m.fromQueue &&
      err instanceof ApiError &&
      (err.code === 'base_moved' || (err.details as { reason?: string } | undefined)?.reason === 'not_fast_forward')
    )
      return {
        queueBecause:
          err.code === 'base_moved'
            ? `${settings.baseBranch} moved since its evidence was made`
            : 'it cannot be fast-forwarded',
      }
    throw err
  }
  return { identity }
}

/** The landed merge recorded, the task's tree removed, and the task marked merged. */
async function recordLanded(h: Harness, ctx: Ctx, m: Merge, before: string): Promise<string> {
  const { repo, task, commit, branch, settings } = m
  const merged = (await resolveCommit(repo, 'HEAD'))!
  // The base moved: the other open tasks are checked against it while this tree goes (checkBase reads the merged
  // commit from the record, so their overlaps already name this task; the ref watcher would notice the move too).
  ctx.store.transaction(() =>
    ctx.store.branches.setMerging(task.id, JSON.stringify({ head: before, commit, at: now(), merged })),
  )
  void scheduleBaseCheck(h, ctx.wsId)
  // The tree goes: a run command (dev server, watcher) still running in it goes first.
  await stopTreeRuns(ctx, task.id)
  // What an undone turn kept aside in the tree goes to your repository first; if it cannot, the folder stays.
  const kept = await keepUndoneState(h, ctx, branch)
  await removeTree(repo, kept ? branch.worktree : null, settings.deleteMergedBranches ? branch.branch : undefined)
  ctx.store.transaction(() => {
    ctx.store.branches.setMerging(task.id, null)
    ctx.store.branches.setMerged(task.id, merged, now(), before)
    const q = ctx.store.mergeQueue.get(task.id)
    ctx.store.mergeQueue.remove(task.id)
    ctx.store.log.appendEvent(
      'task.merged',
      {
        taskId: task.id,
        commit,
        merged,
        strategy: m.strategy,
        branchDeleted: settings.deleteMergedBranches,
        merges: settings.merges,
        ...(q ? { queuedBy: q.queued_by, queuedAt: q.queued_at } : {}),
      },
      now(),
    )
  })
  return merged
}

async function land(
  repo: string,
  commit: string,
  strategy: string,
  message: string,
  before: string,
  /** Who the merge commit is by: you, as git names you in your checkout (includeIf in ~/.gitconfig too); with no
   * identity there, git says so and nothing is changed. */
  identity: GitIdentity | null,
): Promise<void> {
  const env = identity ? identityEnv(identity) : undefined
  const run = async (args: string[]) => {
    const r = await runOwnGit(repo, args, { allowFailure: true, env })
    if (r.code !== 0) {
      // Put the checkout back exactly as it was: no MERGE_HEAD, no half-merged files — and say so only when it is.
      await runOwnGit(repo, ['merge', '--abort'], { allowFailure: true })
      await runOwnGit(repo, ['reset', '--quiet', '--merge'], { allowFailure: true })
      const left = await leftovers(repo, before)
      const why = (r.stderr || r.stdout).trim() || `exit code ${r.code}`
      if (left.length)
        throw new ApiError(
          'merge_blocked',
          `git refused the merge: ${why}. Your checkout was changed and could not be put back: ${left.join('; ')}`,
          { reason: 'git', found: left },
        )
      throw new ApiError('merge_blocked', `git refused the merge: ${why}; nothing was changed`, { reason: 'git' })
    }
  }
  if (strategy === 'ff-only') return run(['merge', '--ff-only', '--quiet', commit])
  if (strategy === 'squash') {
    await run(['merge', '--squash', '--quiet', commit])
    return run(['commit', '--quiet', '--no-verify', '-m', message])
  }
  return run(['merge', '--no-ff', '--no-edit', '--quiet', '-m', message, commit])
}
