/**
 * A plan before code (issue 33, the review loop). A plan-first task's assignee first writes a plan in a read-only
 * tree and submits it (plans.submit, the submit_plan tool); a decider approves it (the assignee's next turn writes
 * code, the plan in its brief), sends it back with a comment (the member plans again) or rejects it (the task goes
 * back to to-do, or is cancelled). Every plan stays, numbered, as the task's history and in the export.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task, TaskPlan } from '../../../../shared/schemas'
import type { PlanDecision, PlanRow } from '../../store/plans-repo'
import type { TaskRow } from '../../store/tasks-repo'
import {
  actorOf,
  requireAssigneeOrDecider,
  requireDecider,
  taskRow,
  type Actor,
  type Ctx,
  type ReadCtx,
} from '../context'
import { makeKey, now } from '../ids'
import { toPlan, toTask } from '../mappers'
import { planPhase } from '../rules/plan-phase'

function emitted(ctx: Ctx, taskRowId: number): Task {
  const task = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(taskRowId)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return task
}

export function listPlans(ctx: Ctx, taskId: string): TaskPlan[] {
  return ctx.store.plans.ofTask(taskRow(ctx, taskId).id).map((p) => toPlan(ctx.wsId, p))
}

/** plans.submit: the assignee's plan, waiting for the user. */
export function submitPlan(ctx: Ctx, p: ParsedParams<'plans.submit'>): { plan: TaskPlan; task: Task } {
  const row = taskRow(ctx, p.taskId)
  const key = makeKey('task', row.id)
  const actor = actorOf(ctx, p.actorId)
  requireAssigneeOrDecider(actor, row.assignee_id, key, 'submit a plan for')
  const body = p.plan.trim()
  if (!body) throw new ApiError('plan_empty', `plan: the plan for ${key} is empty; write the steps you mean to take`)
  const id = ctx.store.transaction(() => {
    const task = ctx.store.tasks.get(row.id)!
    const latest = ctx.store.plans.latest(row.id)
    if (task.plan_first !== 1)
      throw new ApiError('invalid_transition', `${key} is not plan first: write the code, no plan is asked for`)
    if (task.status !== 'in_progress')
      throw new ApiError('invalid_transition', `${key} is ${task.status}: a plan is submitted for a task in progress`)
    if (latest?.state === 'pending')
      throw new ApiError('invalid_transition', `plan ${latest.n} of ${key} is already waiting for the user's review`)
    if (latest?.state === 'approved')
      throw new ApiError('invalid_transition', `plan ${latest.n} of ${key} is approved: write the code now`)
    const at = now()
    const planId = ctx.store.plans.insert(row.id, body, actor.memberId, at)
    ctx.store.log.appendEvent('task.plan', { taskId: row.id, planId, state: 'pending' }, at)
    return planId
  })
  return { plan: toPlan(ctx.wsId, ctx.store.plans.get(id)!), task: emitted(ctx, row.id) }
}

export type PlanVerdict = 'approved' | 'changes_requested' | 'rejected'

const verbs: Record<PlanVerdict, string> = {
  approved: 'approve',
  changes_requested: 'request changes to',
  rejected: 'reject',
}

/** The task's waiting plan, and that the actor may decide it (a decider, not its own author). */
export function pendingPlan(ctx: Ctx, taskId: string, verdict: PlanVerdict, actor: Actor): PlanRow {
  const row = taskRow(ctx, taskId)
  const key = makeKey('task', row.id)
  requireDecider(actor, `${verbs[verdict]} the plan of ${key}`)
  const latest = ctx.store.plans.latest(row.id)
  if (!latest || latest.state !== 'pending')
    throw new ApiError(
      'plan_not_pending',
      latest
        ? `${key} has no plan waiting: plan ${latest.n} is ${latest.state.replace('_', ' ')}`
        : `${key} has no plan waiting: none was submitted`,
    )
  if (actor.memberId !== null && actor.memberId === latest.author_id)
    throw new ApiError('forbidden', `${actor.name} wrote plan ${latest.n} of ${key} and may not decide it`)
  return latest
}

/** Records the decision on the waiting plan (compare-and-set on its state: a plan is decided once). */
export function decidePlan(
  ctx: Ctx,
  plan: PlanRow,
  d: Omit<PlanDecision, 'decided_at'>,
): { plan: TaskPlan; task: Task } {
  ctx.store.transaction(() => {
    const at = now()
    if (!ctx.store.plans.decide(plan.id, { ...d, decided_at: at }))
      throw new ApiError('plan_not_pending', `plan ${plan.n} of ${makeKey('task', plan.task_id)} was decided already`)
    ctx.store.log.appendEvent('task.plan', { taskId: plan.task_id, planId: plan.id, state: d.state }, at)
  })
  return { plan: toPlan(ctx.wsId, ctx.store.plans.get(plan.id)!), task: emitted(ctx, plan.task_id) }
}

/** What the assignee is told when its plan is approved. */
export function approvedText(plan: PlanRow): string {
  const key = makeKey('task', plan.task_id)
  return `Your plan ${plan.n} for ${key} is approved. Write the code now: your tree is writable, and the approved plan is in your brief. Follow it, commit, and deliver as usual.`
}

/** What the assignee is told when the user sends its plan back: the comment, and to plan again. */
export function changesText(plan: PlanRow, comment: string): string {
  const key = makeKey('task', plan.task_id)
  return `The user asked for changes to your plan ${plan.n} for ${key}:\n\n${comment}\n\nRevise the plan and submit it again with submit_plan. Your tree stays read-only until a plan is approved.`
}

/** The brief's lines about a plan-first task of the member. */
export function planBriefLines(ctx: ReadCtx, task: TaskRow): string[] {
  const latest = ctx.store.plans.latest(task.id)
  switch (planPhase(task, latest)) {
    case 'off':
      return []
    case 'planning':
      return [
        latest?.state === 'changes_requested'
          ? `Plan first: the user asked for changes to plan ${latest.n} ("${latest.comment ?? ''}"). Revise it and submit it with submit_plan; your tree is read-only until a plan is approved.`
          : 'Plan first: write no code yet (your tree is read-only). Read what you need, then submit your plan with submit_plan.',
      ]
    case 'pending':
      return [
        `Plan first: your plan ${latest!.n} waits for the user's review; your tree is read-only until it is approved.`,
      ]
    case 'approved':
      return [`Approved plan ${latest!.n} (follow it):`, ...latest!.body.split('\n').map((l) => `  ${l}`)]
  }
}
