/** sessions.get: a page of a member's session (its conversation since its last reset, or its steps on one task). */
import type { ParsedParams } from '../../../shared/contract'
import type { SessionPage } from '../../../shared/schemas'
import { taskRow, type Ctx } from '../harness/context'
import { toStep } from '../harness/members/steps'
import type { MemberHost } from './member-host'

export function sessionPage(ctx: Ctx, host: MemberHost, p: ParsedParams<'sessions.get'>): SessionPage {
  const store = ctx.store
  const limit = p.limit ?? 100
  const before = p.before ?? Number.MAX_SAFE_INTEGER
  const start = store.members.get(host.memberRowId)?.session_start ?? 0
  const rows = p.taskId
    ? store.steps.pageOfTask(host.memberRowId, taskRow(ctx, p.taskId).id, before, limit + 1)
    : store.steps.page(host.memberRowId, before, limit + 1, start)
  const hasMore = rows.length > limit
  const steps = (hasMore ? rows.slice(1) : rows).map((r) => toStep(host.wsId, r))
  return { ...host.info(), steps, hasMore }
}
