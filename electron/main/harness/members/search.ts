import type { SearchHit } from '../../../../shared/schemas'
import { ftsQuery } from '../../store/search-repo'
import type { StepKindValue } from '../../store/steps-repo'
import type { Ctx } from '../context'
import { makeId } from '../ids'

/** sessions.search: what was said in any member's session, newest first; the query is plain text, never syntax. */
export function searchSessions(ctx: Ctx, query: string, limit = 50): SearchHit[] {
  const fts = ftsQuery(query)
  if (!fts) return []
  return ctx.store.search.search(fts, limit).map((r) => ({
    stepId: makeId(ctx.wsId, 'step', r.id),
    memberId: makeId(ctx.wsId, 'member', r.member_id),
    kind: r.kind as StepKindValue,
    snippet: r.snippet,
    createdAt: r.started_at,
  }))
}
