import type { Revision } from '../../../../shared/schemas'
import { decisionRow, type Ctx } from '../context'
import { makeId, parseId } from '../ids'
import { toRevision } from '../mappers'

/**
 * A decision's revisions with their authorship: a revision that applied an accepted proposal names the
 * proposal and its author beside the decider who accepted it. Accepting is a compare-and-set on the
 * proposal's base version, so the proposal accepted against v(n-1) is the one that produced vn. The
 * message a revision was made from comes with its member, so the UI can open that session at it.
 */
export function decisionHistory(ctx: Ctx, decisionId: string): Revision[] {
  const row = decisionRow(ctx, decisionId)
  const byVersion = new Map(ctx.store.proposals.acceptedFor(row.id).map((p) => [p.base_version + 1, p]))
  return ctx.store.decisions.history(row.id).map((r) => ({
    ...toRevision(ctx.wsId, r, byVersion.get(r.version)),
    sourceMemberId: memberOfStep(ctx, r.source_message_id),
  }))
}

function memberOfStep(ctx: Ctx, stepId: string | null): string | null {
  if (!stepId) return null
  try {
    const { workspaceId, n } = parseId(stepId, 'step', 'sourceMessageId')
    const step = workspaceId === ctx.wsId ? ctx.store.steps.get(n) : undefined
    return step ? makeId(ctx.wsId, 'member', step.member_id) : null
  } catch {
    // A source recorded by an import or an agent may not be a step id of this workspace.
    return null
  }
}
