import type { Member, Task } from '../../../../shared/schemas'
import type { RefusalReason } from '../../api/errors'

/**
 * What a task card offers next, from the core's answer the task carries (Task.readiness): ready to accept, a
 * "Deliver on" offer, the reasons it cannot be accepted (or merged) yet, the checks a delivery asked for that are
 * under way, the reason a branch update resolves, and one button per distinct action for the rest.
 */
export function nextSteps(
  task: Task,
  refused: RefusalReason[] | null,
  /** Checks a delivery asked for (autoChecks): the named tester and reviewer are on it. */
  autoChecks: boolean,
  byId: Record<string, Member | undefined>,
) {
  const { readiness } = task
  const ready = task.status === 'delivered' && !refused && readiness.ready
  const offer = task.status === 'in_progress' ? readiness.deliverOn : null
  // Delivered: why it cannot be accepted. Accepted: why it cannot be merged now (the base moved, or it conflicts).
  const reasons: RefusalReason[] | null =
    task.status === 'accepted' && !task.merged
      ? readiness.reasons.length
        ? readiness.reasons
        : null
      : task.status !== 'delivered'
        ? null
        : (refused ?? (readiness.reasons.length ? readiness.reasons : null))
  // Only a member with a model or an agent is asked (the core's canWork): the others stay for the user to ask.
  const asked = (r: RefusalReason) =>
    autoChecks &&
    !!byId[r.action?.memberId ?? '']?.provider &&
    task.status === 'delivered' &&
    r.code === 'evidence_missing' &&
    !r.reportId &&
    !!r.action?.memberId &&
    r.action.memberId !== task.assigneeId
  const waiting = refused ? [] : (reasons ?? []).filter(asked)
  const shown = reasons?.filter((r) => !waiting.includes(r)) ?? null
  const trouble = shown?.length ? shown : null
  // A queued merge the queue is working on asks the members itself (update, re-verify): no second ask from the card.
  // Blocked, it waits for the user, who gets the asks back.
  const queueWorks = !!task.mergeQueue && task.mergeQueue.state !== 'blocked'
  // A moved base or a conflict is resolved by updating the branch (UpdateBranch), not by a message.
  const baseReason = queueWorks
    ? undefined
    : (reasons?.find((r) => r.code === 'merge_conflict') ?? reasons?.find((r) => r.code === 'base_moved'))
  // One button per distinct action: several reasons about one report share it.
  const actions =
    trouble && !queueWorks
      ? [
          ...new Map(
            trouble
              .filter((r) => r.action && r !== baseReason && r.code !== baseReason?.code)
              .map((r) => [r.action!.label, r.action!]),
          ).values(),
        ]
      : []
  return { ready, offer, waiting, trouble, baseReason, actions }
}

export type NextSteps = ReturnType<typeof nextSteps>
