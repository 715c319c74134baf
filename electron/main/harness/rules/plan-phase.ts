/**
 * Where a plan-first task stands with its plan (plans.ts), read by the task's moves and the turn's tree: no code is
 * written or delivered before a plan is approved.
 */
import { ApiError } from '../../../../shared/errors'
import type { PlanRow } from '../../store/plans-repo'
import type { TaskRow } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { makeKey } from '../ids'

/** Where a task stands with its plan: off (not plan first), planning (no plan waiting), pending, approved. */
export type PlanPhase = 'off' | 'planning' | 'pending' | 'approved'

export function planPhase(task: Pick<TaskRow, 'plan_first'>, latest: PlanRow | undefined): PlanPhase {
  if (task.plan_first !== 1) return 'off'
  if (latest?.state === 'pending') return 'pending'
  if (latest?.state === 'approved') return 'approved'
  return 'planning'
}

/** The phase of a task by row number, read from the store. */
export function planPhaseOf(ctx: Ctx, taskRowId: number): PlanPhase {
  const task = ctx.store.tasks.get(taskRowId)
  return task ? planPhase(task, ctx.store.plans.latest(taskRowId)) : 'off'
}

/** Inside a move's transaction: a plan-first task is delivered only once a plan was approved. */
export function assertPlanAllowsDelivery(ctx: Ctx, task: TaskRow): void {
  const phase = planPhase(task, ctx.store.plans.latest(task.id))
  if (phase === 'planning' || phase === 'pending')
    throw new ApiError(
      'invalid_transition',
      `${makeKey('task', task.id)} is plan first and no plan of it is approved yet: nothing is delivered before one is`,
    )
}

/** Plan first on or off, while coding has not started (no plan approved). */
export function setPlanFirst(ctx: Ctx, task: TaskRow, on: boolean): void {
  if ((task.plan_first === 1) === on) return
  const latest = ctx.store.plans.latest(task.id)
  const key = makeKey('task', task.id)
  if (latest?.state === 'pending' || latest?.state === 'approved' || !['todo', 'in_progress'].includes(task.status))
    throw new ApiError(
      'invalid_transition',
      `planFirst: ${key} is ${task.status}${latest ? ` with plan ${latest.n} ${latest.state}` : ''}; plan first changes only before a plan is waiting or approved`,
    )
  ctx.store.plans.setPlanFirst(task.id, on)
}
