/**
 * Moving a task, as every face asks for it (tasks.setStatus): the core's rule (setTaskStatus in tasks.ts: authority,
 * blockers, the allowed moves) with what the repository side does around it. A delivery records the commit git says,
 * never what was typed; a start gets the task its branch and tree (in a worktree workspace); a cancel removes the tree
 * (the branch stays, so nothing committed is lost). Git runs outside the move's transaction, before or after it.
 */
import type { ParsedParams } from '../../../../shared/contract'
import type { Task } from '../../../../shared/schemas'
import { taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { deliveryArtifact } from '../workspace/artifacts'
import { assertBranchable, ensureTaskWorktree, releaseTaskWorktree } from '../workspace/task-branches'
import { runOwnGit } from '../../platform/own-git'
import { filesWithConflictMarkers } from '../../repo/branch-update'
import { makeKey } from '../ids'
import { getTask, setTaskStatus } from './tasks'
import { markersRefused } from './task-update'

/** A task moved to in progress (not by its own assignee): the runtime starts the assignee's turn on it. */
export type TaskStarted = (workspaceId: string, taskRowId: number, actorId: string | undefined) => void

export async function moveTask(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.setStatus'>,
  onStarted?: TaskStarted,
): Promise<Task> {
  const { id: n, status: before } = taskRow(ctx, p.taskId)
  const artifact = p.status === 'delivered' ? await deliveryArtifact(h, ctx, n, p.artifact) : p.artifact
  // A head that still holds conflict markers (a merge resolved in name only) is not delivered.
  if (p.status === 'delivered' && artifact?.commit) {
    const repo = h.workspace(ctx.wsId).repoPath
    const marked = await filesWithConflictMarkers(
      (args) => runOwnGit(repo, args, { allowFailure: true }),
      artifact.commit,
    )
    if (marked.length) throw markersRefused(makeKey('task', n), artifact.commit, marked)
  }
  // A repository without a commit is refused before the task moves: it would be in progress with no tree.
  if (p.status === 'in_progress') await assertBranchable(h, ctx, n)
  const task = setTaskStatus(ctx, { ...p, artifact })
  // The task is read again when its tree went (cancel) or came (a first start).
  if (task.status === 'cancelled') return (await releaseTaskWorktree(h, ctx, n)) ? getTask(ctx, p.taskId) : task
  if (task.status !== 'in_progress') return task
  // Restarting a task restores its tree when the folder went.
  const hadWorktree = Boolean(ctx.store.branches.get(n)?.worktree)
  const started = (await ensureTaskWorktree(h, ctx, n)) && !hadWorktree ? getTask(ctx, p.taskId) : task
  // Once its tree is ready, the assignee gets a turn on it (workspace setting startAgentOnTaskStart).
  if (before !== 'in_progress') onStarted?.(ctx.wsId, n, p.actorId)
  return started
}
