/**
 * The repository side of tasks (DESIGN §1 "task branch"): in a worktree workspace each started task gets its own
 * branch and tree, made once even when two calls race for it, finished after a crash, removed when cancelled.
 */
import { ApiError } from '../../../../shared/errors'
import { carryIdentity } from '../../repo/git-identity'
import {
  convertWorktree,
  createBranchRef,
  freeBranchName,
  isLinkedWorktree,
  isOwnTree,
  makeTree,
  removeTree,
  resolveCommit,
} from '../../repo/git-repo'
import { syncTaskBranch, type TransferLimit } from '../../repo/branch-sync'
import { keepUndoneRefs } from '../../repo/kept-refs'
import type { TaskBranchRow } from '../../store/branches-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey, now } from '../ids'
import { hasNoCommit, noCommitWords } from './first-commit'
import { setUpTree, stopTreeRuns } from './tree-runs'
import { workspaceSettings } from './workspace-settings'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** One task's worktree is created once even when two calls race for it. */
const creating = new Map<string, Promise<TaskBranchRow | null>>()

export function worktreesDir(h: Harness, wsId: string): string {
  return join(h.registry.dataDir, 'worktrees', wsId)
}

/**
 * The task's branch and tree, created from the base branch on first use (and restored if the folder went). The intent
 * is recorded first (a row in state 'creating' that reserves the branch name and the folder), then the branch is made
 * in the user's repository and the tree cloned; a crash anywhere in between is finished by the next call, which does
 * each step again only where it is missing — so a retry never adds another branch. A tree from before trees were
 * clones (a linked worktree) is converted in place on its next use, its files kept.
 */
export async function ensureTaskWorktree(h: Harness, ctx: Ctx, taskRowId: number): Promise<TaskBranchRow | null> {
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) return null
  const key = `${ctx.wsId}:${taskRowId}`
  const pending = creating.get(key)
  if (pending) return pending
  const work = (async () => {
    const repo = h.workspace(ctx.wsId).repoPath
    let row = ctx.store.branches.get(taskRowId)
    if (row?.merged_commit) return row
    if (row && row.state === 'ready' && row.worktree) {
      if (isOwnTree(row.worktree)) return row
      // An old linked worktree, or a tree whose .git is gone (a crash while it was converted, an agent's rm -rf .git):
      // its files are kept under a fresh .git on the branch as your repository has it.
      if (needsConversion(row.worktree)) {
        await convertWorktree(repo, row.worktree, row.branch)
        return row
      }
    }
    if (!row) {
      const base = await resolveCommit(repo, `refs/heads/${settings.baseBranch}`)
      if (!base) await assertBranchable(h, ctx, taskRowId)
      if (!base)
        throw new ApiError(
          'invalid_params',
          `the base branch ${settings.baseBranch} does not exist (any more) in the repository; set another one (workspaces.update baseBranch)`,
        )
      const task = ctx.store.tasks.get(taskRowId)!
      let branch = await freeBranchName(repo, makeKey('task', taskRowId), task.title)
      // A name another task reserved and has not created yet is not free either.
      for (let n = 2; ctx.store.branches.byBranch(branch); n++)
        branch = await freeBranchName(repo, makeKey('task', taskRowId), `${task.title} ${n}`)
      const dir = join(worktreesDir(h, ctx.wsId), makeKey('task', taskRowId))
      ctx.store.transaction(() =>
        ctx.store.branches.insert({
          task_id: taskRowId,
          branch,
          worktree: dir,
          base_commit: base,
          head: base,
          created_at: now(),
          state: 'creating',
        }),
      )
      row = ctx.store.branches.get(taskRowId)!
    }
    const dir = row.worktree ?? join(worktreesDir(h, ctx.wsId), makeKey('task', taskRowId))
    const wasCreating = row.state === 'creating'
    await createBranchRef(repo, row.branch, row.base_commit)
    const start = (await resolveCommit(repo, `refs/heads/${row.branch}`)) ?? row.head
    await makeTree(repo, dir, row.branch, start)
    // A clone has none of your checkout's config: who commits in it is carried over (an agent commits as you).
    await carryIdentity(repo, dir)
    ctx.store.transaction(() => {
      ctx.store.branches.setWorktree(taskRowId, dir)
      if (wasCreating) {
        ctx.store.branches.setState(taskRowId, 'ready')
        ctx.store.log.appendEvent(
          'task.branch',
          { taskId: taskRowId, branch: row.branch, base: row.base_commit },
          now(),
        )
      }
    })
    // A new tree gets the listed files and the setup command; a turn in it waits for them (setupSettled).
    if (wasCreating) setUpTree(h, ctx, taskRowId, dir)?.catch(() => undefined)
    return ctx.store.branches.get(taskRowId)!
  })()
  creating.set(key, work)
  try {
    return await work
  } finally {
    creating.delete(key)
  }
}

/** Refuses (no_commit) to start a task that would get a tree in a repository with no commit to branch from. */
export async function assertBranchable(h: Harness, ctx: Ctx, taskRowId: number): Promise<void> {
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || ctx.store.branches.get(taskRowId)) return
  const repo = h.workspace(ctx.wsId).repoPath
  if (await hasNoCommit(repo))
    throw new ApiError(
      'no_commit',
      `${makeKey('task', taskRowId)} cannot start: ${noCommitWords(settings.baseBranch)}`,
      {
        branch: settings.baseBranch,
      },
    )
}

/** A task's folder that is there but not a tree of its own: an old linked worktree, or one whose .git is gone. */
function needsConversion(dir: string): boolean {
  return isLinkedWorktree(dir) || (existsSync(dir) && !existsSync(join(dir, '.git')))
}

/** Trees whose creation a crash interrupted are finished now (at start), so no task waits for its next turn. */
export async function reconcileTrees(h: Harness, ctx: Ctx): Promise<void> {
  for (const row of ctx.store.branches.list()) {
    if (row.state === 'creating') await ensureTaskWorktree(h, ctx, row.task_id).catch(() => undefined)
  }
}

/** Removes a task's tree (cancelled); the branch and its commits stay. True when there was one. */
export async function releaseTaskWorktree(h: Harness, ctx: Ctx, taskRowId: number): Promise<boolean> {
  const row = ctx.store.branches.get(taskRowId)
  if (!row?.worktree) return false
  await refreshHead(h, ctx, taskRowId)
  await stopTreeRuns(ctx, taskRowId)
  if (!(await keepUndoneState(h, ctx, row))) return false
  await removeTree(h.workspace(ctx.wsId).repoPath, row.worktree)
  ctx.store.transaction(() => ctx.store.branches.setWorktree(taskRowId, null))
  return true
}

/**
 * What undone turns kept aside in a task's tree, brought into the user's repository before the tree goes
 * (repo/kept-refs.ts). False when some of it could not be: then the tree stays, and nothing is lost.
 */
export async function keepUndoneState(h: Harness, ctx: Ctx, row: TaskBranchRow): Promise<boolean> {
  if (!row.worktree) return true
  const repo = h.workspace(ctx.wsId).repoPath
  const { left } = await keepUndoneRefs(repo, row.worktree, row.base_commit, transferLimit(ctx))
  for (const l of left)
    console.warn(`${makeKey('task', row.task_id)}: its tree stays, ${l.ref} could not be kept: ${l.reason}`)
  return left.length === 0
}

/** The most a tree may bring into the user's repository (the workspace setting). */
function transferLimit(ctx: Ctx): TransferLimit {
  return { bytes: workspaceSettings(ctx).treeTransferLimitMB * 1024 * 1024, setting: 'treeTransferLimitMB' }
}

/**
 * Reads the tree's head into the store and brings it into the user's repository as the task's branch (see
 * syncTaskBranch: no program of the tree runs, only this branch is written, only to a descendant of the base).
 * The recorded head is one the user's repository has; returns the row as it is now.
 */
export async function refreshHead(h: Harness, ctx: Ctx, taskRowId: number): Promise<TaskBranchRow | undefined> {
  const row = ctx.store.branches.get(taskRowId)
  if (!row?.worktree || !existsSync(row.worktree) || row.state !== 'ready') return row
  const repo = h.workspace(ctx.wsId).repoPath
  if (needsConversion(row.worktree)) await convertWorktree(repo, row.worktree, row.branch)
  const { head, landed } = await syncTaskBranch(repo, row.worktree, row.branch, row.base_commit, transferLimit(ctx))
  if (head && landed && head !== row.head) ctx.store.transaction(() => ctx.store.branches.setHead(taskRowId, head))
  return ctx.store.branches.get(taskRowId)
}
