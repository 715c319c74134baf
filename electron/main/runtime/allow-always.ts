/** sessions.allowAlways: allow a waiting call, and from now on the same kind of call without asking (a rule). */
import type { ParsedParams, Result } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { Ctx } from '../harness/context'
import { addRule } from '../harness/members/approval-rules'
import type { MemberHost } from './member-host'

/** Allow, and from now on allow the same kind of call without asking: a rule for the member or the team. */
export function allowAlways(
  ctx: Ctx,
  host: MemberHost,
  p: ParsedParams<'sessions.allowAlways'>,
): Result<'sessions.allowAlways'> {
  const pending = host.approvals.get(p.callId)
  if (!pending) throw new ApiError('not_found', `callId: no call ${p.callId} is waiting for approval`)
  const suggestion = pending.suggestion ?? { tool: pending.name }
  // Never the whole tool for a command Concord cannot take apart: allowing run_command would allow anything.
  if (suggestion.noRule && !p.rule)
    throw new ApiError(
      'invalid_params',
      `callId: no rule is offered for this call: ${suggestion.noRule}; allow it once`,
    )
  const rule = addRule(
    ctx,
    p.scope === 'team' ? null : p.memberId,
    p.rule ?? { effect: 'allow', tool: suggestion.tool, commandPrefix: suggestion.commandPrefix ?? null },
  )
  host.approve(p.callId, true)
  return { session: host.info(), rule }
}
