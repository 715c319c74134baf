/**
 * The follow-up task a decision's change offered for a merged task (workspace setting followUps: offer), created
 * when the user takes the offer: the same task the edit makes with followUps: create (propagation.createFollowUp).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task } from '../../../../shared/schemas'
import { actorOf, decisionRow, type Ctx } from '../context'
import { makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { createFollowUp } from '../decisions/follow-ups'
import { taskRow } from './tasks'

export function followUpTask(ctx: Ctx, p: ParsedParams<'tasks.followUp'>): Task {
  // Any member of the workspace may create a task; the actor must be one.
  actorOf(ctx, p.actorId)
  const merged = taskRow(ctx, p.taskId)
  const decision = decisionRow(ctx, p.decisionId)
  const tk = makeKey('task', merged.id)
  const dk = makeKey('decision', decision.id)
  const id = ctx.store.transaction(() => {
    const behind = ctx.store.followUps
      .implementers(decision.id, decision.fingerprint)
      .find((i) => i.task.id === merged.id && i.pinnedFingerprint !== decision.fingerprint && !i.openFollowUps.length)
    if (!behind)
      throw new ApiError(
        'invalid_transition',
        `${tk} has no follow-up to make for ${dk} v${decision.version}: it is not merged, not linked to ${dk}, already in line with this version, or has a follow-up open`,
      )
    return createFollowUp(ctx, behind.task, decision, decision.fingerprint, now())
  })
  const created = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(id)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: created })
  ctx.emit('task.changed', {
    workspaceId: ctx.wsId,
    task: toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(merged.id)!),
  })
  return created
}
