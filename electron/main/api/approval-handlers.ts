import { addRule, listRules, removeRule } from '../harness/members/approval-rules'
import type { Harness } from '../harness/harness'
import { parseId } from '../harness/ids'
import type { Runtime } from '../runtime/runtime'
import type { Handlers } from './handlers'

type ApprovalMethods = 'approvalRules.list' | 'approvalRules.add' | 'approvalRules.remove' | 'sessions.allowAlways'

/** Approval rules per member and per team (the policy reads them: harness/members/approval-policy.ts), and "Always allow". */
export function approvalHandlers(h: Harness, runtime: Runtime): Pick<Handlers, ApprovalMethods> {
  return {
    'approvalRules.list': (p) => listRules(h.ctx(p.workspaceId), p.memberId),
    'approvalRules.add': (p) => addRule(h.ctx(p.workspaceId), p.memberId, p.rule),
    'approvalRules.remove': (p) => removeRule(h.ctx(parseId(p.ruleId, 'rule', 'ruleId').workspaceId), p.ruleId),
    'sessions.allowAlways': (p) => runtime.allowAlways(p),
  }
}
