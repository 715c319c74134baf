import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { AcceptanceReason, Task } from '../../../../shared/schemas'
import { actorOf, requireDecider, taskRow, type Ctx } from '../context'
import { makeKey, now } from '../ids'
import { readinessOfTask, toTask } from '../mappers'

/**
 * Compare-and-set acceptance: succeeds only if the required reports pass, check the delivered
 * artifact and rest on the current content of every decision the task depends on.
 */
export function acceptTask(
  ctx: Ctx,
  p: ParsedParams<'tasks.accept'>,
  /** Accepted by a queued merge (merge-queue.ts): the user's Merge click carried the intent; recorded as such. */
  via?: { mergeQueue: { queuedBy: number | null; queuedAt: string } },
): Task {
  const actor = actorOf(ctx, p.actorId)
  requireDecider(actor, 'accept tasks')
  const taskId = taskRow(ctx, p.taskId).id
  const outcome = ctx.store.transaction(() => {
    const task = ctx.store.tasks.get(taskId)!
    const tk = makeKey('task', task.id)
    if (task.status === 'accepted') return { task, reasons: [] as AcceptanceReason[] }
    if (task.status !== 'delivered')
      throw new ApiError('invalid_transition', `${tk} is ${task.status}; only a delivered task can be accepted`)
    // The same check the Task's readiness shows (rules/readiness.ts), read inside the compare-and-set.
    const { reasons } = readinessOfTask(ctx.wsId, ctx.store, task)
    if (reasons.length) {
      ctx.store.log.bump(
        reasons.some((r) => r.code === 'evidence_stale') ? 'acceptances.refused_stale' : 'acceptances.refused_missing',
      )
      return { task, reasons }
    }
    // Accepted on evidence based on the current decisions: the task is aligned with them now.
    ctx.store.tasks.repinLinks(task.id)
    ctx.store.tasks.update({ ...task, status: 'accepted', flag: null, updated_at: now() })
    ctx.store.log.bump('acceptances.accepted')
    ctx.store.log.appendEvent(
      'task.accepted',
      via
        ? { taskId: task.id, actorId: actor.memberId, by: 'merge_queue', queuedAt: via.mergeQueue.queuedAt }
        : { taskId: task.id, actorId: actor.memberId },
      now(),
    )
    return { task: ctx.store.tasks.get(task.id)!, reasons }
  })
  if (outcome.reasons.length) {
    const has = (c: AcceptanceReason['code']) => outcome.reasons.some((r) => r.code === c)
    const code = has('merge_conflict')
      ? 'merge_conflict'
      : has('base_moved')
        ? 'base_moved'
        : has('evidence_stale')
          ? 'evidence_stale'
          : 'evidence_missing'
    throw new ApiError(
      code,
      `${makeKey('task', outcome.task.id)} cannot be accepted: ${outcome.reasons.map((r) => r.message).join('; ')}`,
      { reasons: outcome.reasons },
    )
  }
  const task = toTask(ctx.wsId, ctx.store, outcome.task)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return task
}
