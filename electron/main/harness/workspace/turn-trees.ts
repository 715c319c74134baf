/** The tree a member's turn works in: the task's own tree, a checkout of a commit, or the user's checkout, and the words the brief uses for it. */
import { join } from 'node:path'
import { carryIdentity } from '../../repo/git-identity'
import { ensureCheckout, objectsOf, resolveCommit } from '../../repo/git-repo'
import type { TaskRow } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey } from '../ids'
import { planPhaseOf } from '../rules/plan-phase'
import { ensureTaskWorktree, refreshHead, worktreesDir } from './task-branches'
import { setupSettled } from './tree-runs'
import { workspaceSettings } from './workspace-settings'

/** The tree a turn works in, and the words the brief uses for it. */
export interface TurnTree {
  root: string
  /** Set when the tree is a read-only checkout: which one, for refusals and the brief. */
  readOnly?: string
  /** The member plans a plan-first task (read-only until a plan is approved): an ACP agent's plan mode, if it has one. */
  planning?: boolean
  /** The user's object store the tree (a clone) reads through alternates: read-only in the turn's sandbox. */
  readable?: string[]
  /** For the brief: "task T-3's worktree on concord/T-3-x at abc1234". */
  description: string
  /** The task whose worktree this is (the turn's changes are its changes). */
  taskRowId: number | null
  commit: string | null
}

/**
 * DESIGN: the assignee works in its task's worktree; a member verifying another's task reads a checkout of the
 * delivered commit (or the current head); a turn without a task reads the base branch. Shared workspaces and plain
 * folders use the user's checkout, as before.
 */
export async function treeForTurn(
  h: Harness,
  ctx: Ctx,
  memberRowId: number,
  taskRowId: number | null,
): Promise<TurnTree> {
  const repo = h.workspace(ctx.wsId).repoPath
  const settings = workspaceSettings(ctx)
  const task = taskRowId === null ? undefined : ctx.store.tasks.get(taskRowId)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) return userCheckout(ctx, repo, memberRowId, task)
  const mine = join(worktreesDir(h, ctx.wsId), `m${memberRowId}-readonly`)
  if (task && task.assignee_id === memberRowId && task.status !== 'accepted' && task.status !== 'cancelled') {
    const own = await ownTree(h, ctx, repo, task.id)
    if (own) return own
  }
  if (task) {
    const branch = await refreshHead(h, ctx, task.id)
    const commit =
      task.artifact_commit ?? branch?.head ?? (await resolveCommit(repo, `refs/heads/${settings.baseBranch}`))
    if (commit) {
      const what = task.artifact_commit
        ? `the delivered commit ${commit.slice(0, 10)} of ${makeKey('task', task.id)}`
        : `${makeKey('task', task.id)}'s current head ${commit.slice(0, 10)} (not delivered yet)`
      return readOnlyCheckout(repo, mine, commit, what, `a read-only checkout of ${what}`)
    }
  }
  const base = await resolveCommit(repo, `refs/heads/${settings.baseBranch}`)
  if (!base)
    return {
      root: repo,
      readOnly: `your checkout (read-only: the base branch ${settings.baseBranch} has no commit)`,
      description: `the repository at ${repo}, read-only`,
      taskRowId: null,
      commit: null,
    }
  const what = `the base branch ${settings.baseBranch} at ${base.slice(0, 10)}`
  return readOnlyCheckout(repo, mine, base, what, `a read-only checkout of ${what} (you have no task in progress)`)
}

/** A shared workspace or a plain folder: the user's checkout (read-only while the member's plan waits). */
function userCheckout(ctx: Ctx, repo: string, memberRowId: number, task: TaskRow | undefined): TurnTree {
  const phase = task?.assignee_id === memberRowId ? planPhaseOf(ctx, task.id) : 'off'
  if (phase === 'planning' || phase === 'pending')
    return {
      root: repo,
      readOnly: `the repository at ${repo}, read-only until your plan for ${makeKey('task', task!.id)} is approved`,
      planning: true,
      description: `the repository at ${repo} (read-only: plan first)`,
      taskRowId: null,
      commit: null,
    }
  return { root: repo, description: `the repository at ${repo}`, taskRowId: null, commit: null }
}

/** The assignee's own task tree, made if needed and set up; null when it has none. */
async function ownTree(h: Harness, ctx: Ctx, repo: string, taskRowId: number): Promise<TurnTree | null> {
  const branch = await ensureTaskWorktree(h, ctx, taskRowId)
  if (branch?.worktree) await setupSettled(h, ctx, taskRowId, branch.worktree)
  if (!branch?.worktree) return null
  // Checked again before each turn: an identity you changed in your checkout since, or one an agent set, is put right.
  await carryIdentity(repo, branch.worktree)
  const head = (await refreshHead(h, ctx, taskRowId))?.head ?? branch.head
  const description = `${makeKey('task', taskRowId)}'s worktree, branch ${branch.branch} at ${head.slice(0, 10)}`
  // Plan first: the task's own tree, read-only until a plan of it is approved (writes and commits are refused).
  const phase = planPhaseOf(ctx, taskRowId)
  const planning = phase === 'planning' || phase === 'pending'
  return {
    root: branch.worktree,
    readable: await objectsOf(repo),
    ...(planning ? { readOnly: `${description}, read-only until your plan is approved`, planning } : {}),
    description: planning ? `${description} (read-only: plan first)` : description,
    taskRowId,
    commit: head,
  }
}

/** The member's own read-only checkout moved to `commit`. */
async function readOnlyCheckout(
  repo: string,
  dir: string,
  commit: string,
  what: string,
  readOnly: string,
): Promise<TurnTree> {
  return {
    root: await ensureCheckout(repo, dir, commit),
    readable: await objectsOf(repo),
    readOnly,
    description: `a read-only checkout of ${what}`,
    taskRowId: null,
    commit,
  }
}
