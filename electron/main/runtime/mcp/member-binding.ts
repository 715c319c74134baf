/**
 * What both MCP bindings share: notices queued for the member are delivered with the next Concord tool
 * result (the agent sees a decision change at its next step, not only at its next prompt), and recorded as
 * a notice step in its session like the built-in loop does.
 */
import type { Ctx } from '../../harness/context'
import { now } from '../../harness/ids'
import { quiet, writeStep } from '../step-writer'

export function takeNotices(
  ctx: Ctx,
  memberRowId: number,
  turnId: number | null,
  recordStep = true,
): { text: string; stepId: number | null } | null {
  const pending = ctx.store.log.notices(memberRowId, true)
  if (!pending.length) return null
  const stepId = ctx.store.transaction(() => {
    ctx.store.log.markDelivered(memberRowId, pending.at(-1)!.id, now())
    // Under ACP the app records the notice step once the tool call's result reaches it: written here, it could
    // land before the app has recorded the tool call itself.
    if (!recordStep) return null
    const text = pending.map((p) => p.text).join('\n\n')
    // Announced by the caller, after this transaction.
    return writeStep(ctx.store, quiet, {
      member_id: memberRowId,
      turn_id: turnId,
      kind: 'notice',
      status: 'done',
      text,
      started_at: now(),
      ended_at: now(),
    })
  })
  const text = [
    '## Notices from Concord since your last step (read these first)',
    ...pending.map((n) => `- ${n.text.replace(/\n/g, '\n  ')}`),
  ].join('\n')
  return { text, stepId }
}
