/**
 * What the harness's log lists for the faces: a member's notices (all, or those still to deliver) and the
 * workspace's events after a cursor, oldest first. Reading only.
 */
import type { ParsedParams } from '../../../../shared/contract'
import type { HarnessEvent, Notice } from '../../../../shared/schemas'
import { memberRowOf, type ReadCtx } from '../context'
import { toNotice } from '../mappers'

export function listNotices(ctx: ReadCtx, p: ParsedParams<'notices.list'>): Notice[] {
  const n = memberRowOf(ctx, p.memberId, 'memberId')
  return ctx.store.log.notices(n, p.pending ?? false).map((r) => toNotice(ctx.wsId, ctx.store, r))
}

export function listEvents(ctx: ReadCtx, p: ParsedParams<'events.list'>): HarnessEvent[] {
  return ctx.store.log
    .events(p.after ?? 0, p.limit ?? 200)
    .map((e) => ({ id: e.id, type: e.type, payload: JSON.parse(e.payload) as unknown, createdAt: e.created_at }))
}
