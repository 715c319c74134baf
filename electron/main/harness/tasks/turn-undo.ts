/**
 * sessions.undoTurn (issue 35, "Undo a turn"): a turn that ran in its task's tree is undone — the tree goes back to
 * where it was before the turn (its checkpoint: HEAD and everything uncommitted), what is there now is kept aside in
 * the tree under refs/concord/undone/<turn> (repo/turn-undo-tree.ts; brought into the user's repository before the
 * tree goes, repo/kept-refs.ts), the turn is marked undone in the session, and
 * its member is told at the start of its next turn (the brief). Refused:
 * - not_found: no such turn, or a turn that did not run in a task's tree (no checkpoint);
 * - busy: the member is in a turn (the caller checks, it knows the hosts);
 * - invalid_transition: undone already; a later turn in the same tree is still in force (undo the latest first); the
 *   task is merged, cancelled or accepted, or its tree is gone; its branch was brought up to date since the turn.
 *
 * Evidence follows the tree: the commits the undo takes off the branch are recorded (undone_commits). A task delivered
 * on one of them is in progress again (its delivery is gone from its branch), a report on one offers no delivery
 * (readiness.ts) and a delivery of one is refused (task-branches.ts deliveryArtifact).
 */
import { join } from 'node:path'
import { ApiError } from '../../../../shared/errors'
import type { UndoneTurn } from '../../../../shared/schemas'
import { identityEnv, resolveIdentity } from '../../repo/git-identity'
import { isOwnTree, objectsOf } from '../../repo/git-repo'
import { commitsBetween, undoTree } from '../../repo/turn-undo-tree'
import { parseCheckpoint, type TurnUndone } from '../../store/turn-undo-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now, parseId } from '../ids'
import { toTask } from '../mappers'
import { toStep } from '../members/steps'
import { refreshHead } from '../workspace/task-branches'

/** One undo per task tree at a time. */
const undoing = new Set<string>()

/** Who commits the kept-aside state when git knows no one in your checkout. */
const FALLBACK = { name: 'Concord', email: 'concord@localhost' }

type Checkpoint = NonNullable<ReturnType<typeof parseCheckpoint>>

export async function undoTurn(h: Harness, ctx: Ctx, stepId: string): Promise<UndoneTurn> {
  const { turnId, checkpoint } = undoableTurn(ctx, stepId)
  const tk = makeKey('task', checkpoint.task)
  const tree = undoableTree(ctx, checkpoint, tk)
  const lock = `${ctx.wsId}:${checkpoint.task}`
  if (undoing.has(lock)) throw new ApiError('busy', `a turn of ${tk} is being undone already`)
  undoing.add(lock)
  try {
    const repo = h.workspace(ctx.wsId).repoPath
    const readable = await objectsOf(repo)
    const identity = await resolveIdentity(repo)
    const done = await undoTree(tree, {
      commit: checkpoint.commit,
      tree: checkpoint.tree,
      scratch: join(h.registry.dataDir, 'scratch', ctx.wsId, 'snapshots'),
      keptRef: `refs/concord/undone/turn-${turnId}`,
      message: `What ${tk}'s tree held when Concord undid the turn ${stepId}`,
      env: identityEnv(identity ?? { author: FALLBACK, committer: FALLBACK }),
      readable,
    })
    const dropped = await commitsBetween(tree, checkpoint.commit, done.from, readable)
    // The task's branch in your repository goes back with the tree.
    await refreshHead(h, ctx, checkpoint.task)
    const undone: TurnUndone = {
      at: now(),
      commit: checkpoint.commit,
      keptRef: done.keptRef,
      keptCommit: done.keptCommit,
      from: done.from,
      exact: done.exact,
    }
    const row = recordUndone(ctx, turnId, checkpoint.task, undone, dropped)
    const step = toStep(ctx.wsId, ctx.store.steps.get(turnId)!)
    ctx.emit('session.step', { workspaceId: ctx.wsId, memberId: step.memberId, step })
    const dto = toTask(ctx.wsId, ctx.store, row)
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
    return {
      turnId: step.id,
      taskId: dto.id,
      commit: checkpoint.commit,
      from: done.from,
      keptRef: done.keptRef,
      keptCommit: done.keptCommit,
      tree,
      exact: done.exact,
      commitsUndone: dropped,
      task: dto,
    }
  } finally {
    undoing.delete(lock)
  }
}

/** The start of a turn that ran in a task's tree, not undone, with no later turn in force in that tree. */
function undoableTurn(ctx: Ctx, stepId: string): { turnId: number; checkpoint: Checkpoint } {
  const { n: turnId } = parseId(stepId, 'step', 'stepId')
  const start = ctx.store.steps.get(turnId)
  const checkpoint = start && start.turn_id === start.id ? parseCheckpoint(start) : null
  if (!start || !checkpoint)
    throw new ApiError(
      'not_found',
      `stepId: ${stepId} is not the start of a turn that ran in a task's tree (only those can be undone)`,
    )
  if (start.undone) throw new ApiError('invalid_transition', `this turn was undone already`, { reason: 'undone' })
  const later = ctx.store.turnUndo.laterInForce(turnId, checkpoint.task)
  if (later)
    throw new ApiError(
      'invalid_transition',
      `a later turn (${makeId(ctx.wsId, 'step', later.id)}) worked in the same tree after this one: undo that one first`,
      { reason: 'later_turn', turnId: makeId(ctx.wsId, 'step', later.id) },
    )
  return { turnId, checkpoint }
}

/** The task's tree, when it is still there to put back: not merged, accepted or cancelled, on the turn's base. */
function undoableTree(ctx: Ctx, checkpoint: Checkpoint, tk: string): string {
  const task = ctx.store.tasks.get(checkpoint.task)
  const branch = ctx.store.branches.get(checkpoint.task)
  if (!task || !branch) throw new ApiError('not_found', `${tk} or its branch is not there any more`)
  if (branch.merged_commit) throw new ApiError('invalid_transition', `${tk} was merged: its turns cannot be undone`)
  if (task.status === 'accepted' || task.status === 'cancelled')
    throw new ApiError('invalid_transition', `${tk} is ${task.status}: its turns cannot be undone`)
  if (!branch.worktree || branch.state !== 'ready' || !isOwnTree(branch.worktree))
    throw new ApiError('invalid_transition', `${tk}'s tree is gone: there is nothing to put back`, {
      reason: 'no_tree',
    })
  if (branch.base_commit !== checkpoint.base)
    throw new ApiError(
      'invalid_transition',
      `${tk}'s branch was brought up to date with its base since this turn: undoing it would drop that update`,
      { reason: 'base_moved' },
    )
  return branch.worktree
}

/** The turn marked undone, the commits it took off recorded, and a delivery on one of them taken back. */
function recordUndone(ctx: Ctx, turnId: number, taskRowId: number, undone: TurnUndone, dropped: string[]) {
  return ctx.store.transaction(() => {
    ctx.store.turnUndo.setUndone(turnId, undone)
    ctx.store.turnUndo.addCommits(taskRowId, dropped, turnId)
    ctx.store.log.appendEvent('turn.undone', { turnId, taskId: taskRowId, ...undone, commits: dropped }, undone.at)
    const current = ctx.store.tasks.get(taskRowId)!
    // Delivered on a commit the undo took off its branch: that delivery is not on the branch any more.
    if (current.status === 'delivered' && current.artifact_commit && dropped.includes(current.artifact_commit)) {
      ctx.store.tasks.update({
        ...current,
        status: 'in_progress',
        artifact_commit: null,
        artifact_digest: null,
        updated_at: undone.at,
      })
      ctx.store.log.appendEvent(
        'task.status',
        {
          taskId: taskRowId,
          from: 'delivered',
          to: 'in_progress',
          commit: current.artifact_commit,
          digest: current.artifact_digest,
          reason: 'turn_undone',
        },
        undone.at,
      )
    }
    return ctx.store.tasks.get(taskRowId)!
  })
}
