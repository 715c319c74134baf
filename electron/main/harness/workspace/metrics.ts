import type { Metrics } from '../../../../shared/schemas'
import type { Ctx } from '../context'
import { makeId, makeKey } from '../ids'
import { costFigures } from './money'
import { workspaceSettings } from './workspace-settings'

export interface TokenTotals {
  perMember: { memberId: string; input: number; output: number; unreported: number }[]
  perTask: Metrics['tokens']['perTask']
}

/** Tokens per member and per task, from the figures the store keeps with every step write (no scan of the steps). */
export function tokenTotals(ctx: Ctx): TokenTotals {
  const { usage } = ctx.store
  return {
    perMember: usage.perMember().map((u) => ({
      memberId: makeId(ctx.wsId, 'member', u.id),
      input: u.input,
      output: u.output,
      unreported: u.unreported,
    })),
    perTask: usage.perTask().map((u) => ({
      taskId: makeId(ctx.wsId, 'task', u.id),
      key: makeKey('task', u.id),
      title: u.title,
      input: u.input,
      output: u.output,
      unreported: u.unreported,
    })),
  }
}

/**
 * The coordination figures, read from the counters the harness keeps in the same transactions as the edits
 * and the token figures kept with the steps: O(counters + members + tasks with usage), whatever the history.
 */
export function getMetrics(ctx: Ctx): Metrics {
  const c = ctx.store.log.counters()
  const n = (name: string) => c.get(name) ?? 0
  const tokens = tokenTotals(ctx)
  const perMember = tokens.perMember
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
    acceptances: {
      accepted: n('acceptances.accepted'),
      refusedStale: n('acceptances.refused_stale'),
      refusedMissing: n('acceptances.refused_missing'),
    },
    claims: { madeStale: n('claims.made_stale'), keptValid: n('claims.kept_valid') },
    proposals: {
      created: n('proposals.created'),
      accepted: n('proposals.accepted'),
      rejected: n('proposals.rejected'),
    },
    autoTurns: n('auto_turns'),
    tokens: {
      total: perMember.reduce(
        (t, m) => ({ input: t.input + m.input, output: t.output + m.output, unreported: t.unreported + m.unreported }),
        {
          input: 0,
          output: 0,
          unreported: 0,
        },
      ),
      perMember,
      perTask: tokens.perTask,
    },
    cost: costFigures(ctx, workspaceSettings(ctx)),
  }
}
