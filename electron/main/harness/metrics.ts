import type { Metrics } from '../../../shared/schemas'
import type { Ctx } from './context'

export interface TokenTotals {
  perMember: { memberId: string; input: number; output: number; unreported: number }[]
  perTask: { taskId: string; input: number; output: number; unreported: number }[]
}

/** The coordination figures, read from the counters the harness keeps in the same transactions as the edits. */
export function getMetrics(ctx: Ctx, tokens?: TokenTotals): Metrics {
  const c = ctx.store.log.counters()
  const n = (name: string) => c.get(name) ?? 0
  const perMember = tokens?.perMember ?? []
  return {
    workspaceId: ctx.wsId,
    decisionEdits: { normative: n('decision_edits.normative'), editorial: n('decision_edits.editorial') },
    tasksFlagged: {
      requirements_updated: n('tasks_flagged.requirements_updated'),
      needs_adjustment: n('tasks_flagged.needs_adjustment'),
      needs_reverification: n('tasks_flagged.needs_reverification'),
    },
    acceptancesRevoked: n('acceptances_revoked'),
    noticesSent: n('notices_sent'),
    acceptances: { accepted: n('acceptances.accepted'), refusedStale: n('acceptances.refused_stale'), refusedMissing: n('acceptances.refused_missing') },
    claims: { madeStale: n('claims.made_stale'), keptValid: n('claims.kept_valid') },
    proposals: { created: n('proposals.created'), accepted: n('proposals.accepted'), rejected: n('proposals.rejected') },
    autoTurns: n('auto_turns'),
    tokens: {
      total: perMember.reduce((t, m) => ({ input: t.input + m.input, output: t.output + m.output, unreported: t.unreported + m.unreported }), {
        input: 0,
        output: 0,
        unreported: 0,
      }),
      perMember,
      perTask: tokens?.perTask ?? [],
    },
  }
}
