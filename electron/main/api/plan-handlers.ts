import { makeId } from '../harness/ids'
import type { Harness } from '../harness/harness'
import type { Ctx } from '../harness/context'
import { actorOf } from '../harness/context'
import { moveTask } from '../harness/tasks/task-status'
import { approvedText, changesText, decidePlan, listPlans, pendingPlan, submitPlan } from '../harness/tasks/plans'
import type { Runtime } from '../runtime/runtime'
import type { Handlers } from './handlers'

type PlanMethods = 'plans.submit' | 'plans.list' | 'plans.approve' | 'plans.requestChanges' | 'plans.reject'

/**
 * A plan before code: the decisions on a waiting plan reach the assignee the way a message from you does
 * (sessions.send): an approval starts its coding turn, a request for changes carries your comment and it plans again.
 */
export function planHandlers(h: Harness, runtime: Runtime): Pick<Handlers, PlanMethods> {
  /** The task's assignee gets the message; null when the task has none (nobody to tell). */
  const tell = (ctx: Ctx, taskRowId: number, text: string): string | null => {
    const assignee = ctx.store.tasks.get(taskRowId)?.assignee_id
    if (assignee === null || assignee === undefined) return null
    const { stepId } = runtime.send({
      memberId: makeId(ctx.wsId, 'member', assignee),
      text,
      taskId: makeId(ctx.wsId, 'task', taskRowId),
    })
    return stepId
  }
  return {
    'plans.submit': (p) => submitPlan(h.ctxOf('task', p.taskId, 'taskId'), p),
    'plans.list': (p) => listPlans(h.ctxOf('task', p.taskId, 'taskId'), p.taskId),
    'plans.approve': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      const plan = pendingPlan(ctx, p.taskId, 'approved', actorOf(ctx, p.actorId))
      const decided = decidePlan(ctx, plan, {
        state: 'approved',
        comment: null,
        decided_by: actorOf(ctx, p.actorId).memberId,
        rejected_to: null,
      })
      return { ...decided, stepId: tell(ctx, plan.task_id, approvedText(plan)) }
    },
    'plans.requestChanges': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      const plan = pendingPlan(ctx, p.taskId, 'changes_requested', actorOf(ctx, p.actorId))
      const decided = decidePlan(ctx, plan, {
        state: 'changes_requested',
        comment: p.comment,
        decided_by: actorOf(ctx, p.actorId).memberId,
        rejected_to: null,
      })
      return { ...decided, stepId: tell(ctx, plan.task_id, changesText(plan, p.comment)) }
    },
    'plans.reject': async (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      const to = p.to ?? 'todo'
      const plan = pendingPlan(ctx, p.taskId, 'rejected', actorOf(ctx, p.actorId))
      // The move first (its own rules: a cancel removes the tree); the plan is decided once the task has moved.
      await moveTask(h, ctx, { taskId: p.taskId, status: to, actorId: p.actorId })
      return decidePlan(ctx, plan, {
        state: 'rejected',
        comment: p.comment?.trim() || null,
        decided_by: actorOf(ctx, p.actorId).memberId,
        rejected_to: to,
      })
    },
  }
}
