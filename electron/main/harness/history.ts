import type { Revision } from '../../../shared/schemas'
import type { Ctx } from './context'
import { decisionRow } from './decisions'
import { toRevision } from './mappers'

/**
 * A decision's revisions with their authorship: a revision that applied an accepted proposal names the
 * proposal and its author beside the decider who accepted it. Accepting is a compare-and-set on the
 * proposal's base version, so the proposal accepted against v(n-1) is the one that produced vn.
 */
export function decisionHistory(ctx: Ctx, decisionId: string): Revision[] {
  const row = decisionRow(ctx, decisionId)
  const byVersion = new Map(ctx.store.proposals.acceptedFor(row.id).map((p) => [p.base_version + 1, p]))
  return ctx.store.decisions.history(row.id).map((r) => toRevision(ctx.wsId, r, byVersion.get(r.version)))
}
