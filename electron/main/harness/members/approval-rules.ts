/**
 * Approval rules (allow or deny a tool, a command prefix, a path glob) for one member or the whole team of a
 * workspace: the API's view of them and the list the policy reads (harness/members/approval-policy.ts).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { ApprovalRule } from '../../../../shared/schemas'
import type { ApprovalRuleRow } from '../../store/approval-rules-repo'
import type { PolicyRule } from './approval-policy'
import { memberRowOf, type Ctx } from '../context'
import { makeId, now, parseId } from '../ids'

export function toApprovalRule(ws: string, r: ApprovalRuleRow): ApprovalRule {
  return {
    id: makeId(ws, 'rule', r.id),
    workspaceId: ws,
    memberId: r.member_id === null ? null : makeId(ws, 'member', r.member_id),
    effect: r.effect,
    tool: r.tool,
    commandPrefix: r.command_prefix,
    pathGlob: r.path_glob,
    createdAt: r.created_at,
  }
}

/** The rules that apply to a member, as the policy reads them: its own first, then the team's. */
export function rulesFor(ctx: Ctx, memberRowId: number): PolicyRule[] {
  const rows = ctx.store.approvalRules.forMember(memberRowId)
  return [...rows.filter((r) => r.member_id !== null), ...rows.filter((r) => r.member_id === null)].map((r) =>
    toApprovalRule(ctx.wsId, r),
  )
}

export function listRules(ctx: Ctx, memberId?: string): ApprovalRule[] {
  const rows = memberId
    ? ctx.store.approvalRules.forMember(memberRowOf(ctx, memberId, 'memberId'))
    : ctx.store.approvalRules.list()
  return rows.map((r) => toApprovalRule(ctx.wsId, r))
}

export function addRule(
  ctx: Ctx,
  memberId: string | null,
  rule: ParsedParams<'approvalRules.add'>['rule'],
): ApprovalRule {
  const memberRow = memberId === null ? null : memberRowOf(ctx, memberId, 'memberId')
  const row = ctx.store.approvalRules.add({
    member_id: memberRow,
    effect: rule.effect,
    tool: rule.tool ?? null,
    command_prefix: rule.commandPrefix?.replace(/\s+/g, ' ') ?? null,
    path_glob: rule.pathGlob ?? null,
    created_at: now(),
  })
  ctx.store.log.appendEvent(
    'approval_rule.added',
    { ruleId: row.id, memberId: memberRow, effect: row.effect },
    row.created_at,
  )
  return toApprovalRule(ctx.wsId, row)
}

export function removeRule(ctx: Ctx, ruleId: string): { removed: true } {
  const { n } = parseId(ruleId, 'rule', 'ruleId')
  if (!ctx.store.approvalRules.remove(n)) throw new ApiError('not_found', `ruleId: no approval rule ${ruleId}`)
  ctx.store.log.appendEvent('approval_rule.removed', { ruleId: n }, now())
  return { removed: true }
}
