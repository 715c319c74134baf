/**
 * A follow-up task of a merged task for a decision's new content (decisions/follow-ups.ts says when one is due): made
 * here by the edit (workspace setting followUps: create), or when the user takes the offer (followUps: offer).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task } from '../../../../shared/schemas'
import { actorOf, decisionRow, taskRow, type Ctx } from '../context'
import { makeKey, now } from '../ids'
import { toTask } from '../mappers'
import type { TaskRow } from '../../store/tasks-repo'

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

export interface ChangedDecision {
  id: number
  version: number
  statement: string
}

/** The title and spec Concord writes for a follow-up of merged task `t` for the decision at `d.version`. */
export function followUpText(t: TaskRow, d: ChangedDecision): { title: string; spec: string } {
  const dkey = makeKey('decision', d.id)
  const key = makeKey('task', t.id)
  return {
    title: `Follow up ${key} for ${dkey} v${d.version}: ${t.title}`,
    spec: `${key} was merged before ${dkey} changed to v${d.version}: the base branch has its code, written for the earlier version. Bring it in line with the current statement: ${d.statement}`,
  }
}

/**
 * The follow-up of merged task `t` for the decision's current content, linked to it and assigned like `t`. Inside
 * the caller's transaction; the edit (followUps: create) and tasks.followUp (offer) both make it here. `t`'s own
 * link stays on the content it was merged on.
 */
export function createFollowUp(ctx: Ctx, t: TaskRow, decision: ChangedDecision, to: string, at: string): number {
  const { store } = ctx
  const id = store.tasks.insert({
    ...followUpText(t, decision),
    acceptance_criteria: t.acceptance_criteria,
    assignee_id: t.assignee_id,
    required_reports: t.required_reports,
    created_at: at,
  })
  store.tasks.replaceLinks(id, [{ decisionId: decision.id, version: decision.version, fingerprint: to }])
  store.followUps.insert(id, t.id, decision.id)
  store.log.appendEvent(
    'task.created',
    { taskId: id, followUpOf: t.id, decisionId: decision.id, version: decision.version },
    at,
  )
  return id
}
