/**
 * sessions.retry: a turn that failed (the model call errored, the agent crashed, the repository could not be
 * prepared) runs again from the message that started it, without the human retyping it. The message is queued
 * anew, ahead of anything queued behind the failed turn, so the retried turn answers first.
 */
import { ApiError } from '../../../shared/errors'
import { now } from '../harness/ids'
import type { StepImageRow, StepRow, WorkspaceStore } from '../harness/rows'
import type { EventBus } from '../platform/events/event-bus'
import type { Ctx } from '../harness/context'
import type { MemberHost } from './member-host'
import { busSink, quiet, writeStep } from './step-writer'

/** The start of the member's latest turn if that turn failed; null when the latest turn did not fail. */
export function failedTurn(store: WorkspaceStore, memberRowId: number): StepRow | null {
  const member = store.members.get(memberRowId)
  const start = store.retry.lastTurnStart(memberRowId, member?.session_start ?? 0)
  if (!start) return null
  const last = store.steps.lastOfTurn(start.id)
  return last?.kind === 'error' || last?.status === 'error' ? start : null
}

/**
 * Queues the failed turn's message again (same text, sender, task and approval), then what was queued after it,
 * in order. Returns the new step id and the ids the moved messages had and have now (for delegation waiters).
 */
export function requeueFailedTurn(
  store: WorkspaceStore,
  memberRowId: number,
  name: string,
): { stepId: number; moved: (readonly [number, number])[] } {
  return store.transaction(() => {
    const start = failedTurn(store, memberRowId)
    if (!start)
      throw new ApiError(
        'invalid_transition',
        `${name}'s last turn did not fail: there is nothing to retry (send a message instead)`,
      )
    const queued = takeQueued(store, memberRowId)
    // Announced by the caller once this transaction is over (the one step, or a reset when messages moved).
    const stepId = writeStep(store, quiet, {
      member_id: memberRowId,
      kind: start.kind,
      status: 'queued',
      text: start.text,
      from_member_id: start.from_member_id,
      task_id: start.task_id,
      approval: start.approval,
      started_at: now(),
    })
    store.stepImages.copy(start.id, stepId)
    return { stepId, moved: requeue(store, queued) }
  })
}

/** A queued message taken out of the inbox, with the images it carries (its removal takes them from the store). */
interface Taken {
  row: StepRow
  images: StepImageRow[]
}

/** Takes the member's queued messages out of its inbox, in order (to queue them again behind something). */
function takeQueued(store: WorkspaceStore, memberRowId: number): Taken[] {
  const queued: Taken[] = []
  for (let q = store.steps.nextQueued(memberRowId); q; q = store.steps.nextQueued(memberRowId)) {
    queued.push({ row: q, images: q.images ? store.stepImages.of(q.id) : [] })
    store.steps.remove(q.id)
  }
  return queued
}

/** Queues taken messages again, in their order; returns the ids they had and have now (for delegation waiters). */
function requeue(store: WorkspaceStore, queued: Taken[]): (readonly [number, number])[] {
  return queued.map(({ row, images }) => {
    const { id: _old, ...rest } = row
    const id = writeStep(store, quiet, rest)
    store.stepImages.add(id, images)
    return [row.id, id] as const
  })
}

/**
 * sessions.reset: a new conversation for a member whose history keeps failing; earlier steps stay in the store and
 * the export, out of the view. Messages still queued move into the new conversation (the moves are returned).
 */
export function resetSession(store: WorkspaceStore, memberRowId: number): (readonly [number, number])[] {
  return store.transaction(() => {
    const queued = takeQueued(store, memberRowId)
    store.members.setSessionStart(memberRowId, store.steps.lastId(memberRowId))
    // Re-inserted after the new start, in their order.
    return requeue(store, queued)
  })
}

/**
 * sessions.retry: the member's failed turn queued again (its agent stopped: the next turn gets a fresh process, as
 * with Restart), then its inbox resumed.
 */
export function retryTurn(bus: EventBus, ctx: Ctx, host: MemberHost, stopAgent: () => void): void {
  const { store } = ctx
  const { stepId, moved } = requeueFailedTurn(
    store,
    host.memberRowId,
    store.members.get(host.memberRowId)?.name ?? host.memberId,
  )
  for (const [from, to] of moved) host.renameTurn(from, to)
  stopAgent()
  // Moved messages have new ids: the view reloads; otherwise the one new step is enough.
  if (moved.length) bus.emit('session.reset', { workspaceId: host.wsId, memberId: host.memberId })
  else busSink(bus, host.wsId)(store.steps.get(stepId)!)
  host.resume()
}

/** sessions.reset: a new conversation for the member (see resetSession), its view reloaded, its inbox resumed. */
export function resetConversation(bus: EventBus, ctx: Ctx, host: MemberHost): void {
  const moved = resetSession(ctx.store, host.memberRowId)
  for (const [from, to] of moved) host.renameTurn(from, to)
  bus.emit('session.reset', { workspaceId: host.wsId, memberId: host.memberId })
  host.resume()
}
