/**
 * The brief going out: built for a member's next model call or prompt with the notices pending now, which go out
 * with it, so they are marked delivered and shown in the session as one notice step. Both engines deliver it here.
 */
import type { Ctx } from '../harness/context'
import { now } from '../harness/ids'
import type { MemberRow } from '../harness/rows'
import { buildBrief, type Brief } from './brief'
import type { TurnSteps } from './step-writer'

export function deliverBrief(ctx: Ctx, member: MemberRow, { insert }: Pick<TurnSteps, 'insert'>): Brief {
  const pending = ctx.store.log.notices(member.id, true)
  const brief = buildBrief(ctx, member, pending)
  if (pending.length) {
    ctx.store.log.markDelivered(member.id, pending.at(-1)!.id, now())
    insert({ kind: 'notice', status: 'done', text: pending.map((p) => p.text).join('\n\n'), ended_at: now() })
  }
  return brief
}
