import type { ParsedParams, Result } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Ctx } from '../context'
import { decisionRow } from '../context'
import { updateDecision } from './decisions'
import { makeKey } from '../ids'
import { assertAtVersion } from './version-check'

/**
 * Reverting is an ordinary edit whose new content is an earlier revision's: the same authority rules,
 * compare-and-set, propagation and impact as decisions.update (the fingerprint of content seen before
 * comes back, so evidence pinned to it is valid again). Only the fields that differ are sent, so a
 * proposer's revert is a proposal that reads like one.
 */
export function revertDecision(ctx: Ctx, p: ParsedParams<'decisions.revert'>): Result<'decisions.revert'> {
  const row = decisionRow(ctx, p.decisionId)
  const key = makeKey('decision', row.id)
  assertAtVersion(row, p.expectedVersion, 'revert')
  if (p.toVersion >= row.version) {
    throw new ApiError(
      'already_current',
      p.toVersion === row.version
        ? `${key} is already at v${row.version}: choose an earlier version to revert to`
        : `${key} has no v${p.toVersion} yet (it is at v${row.version})`,
      { currentVersion: row.version },
    )
  }
  const target = ctx.store.decisions.revision(row.id, p.toVersion)
  if (!target) throw new ApiError('not_found', `toVersion: ${key} has no v${p.toVersion}`)
  const fields = {
    ...(target.title !== row.title ? { title: target.title } : {}),
    ...(target.statement !== row.statement ? { statement: target.statement } : {}),
    ...(target.rationale !== row.rationale ? { rationale: target.rationale } : {}),
    ...(target.status !== row.status ? { status: target.status } : {}),
  }
  if (Object.keys(fields).length === 0) {
    throw new ApiError(
      'already_current',
      `${key} v${row.version} already says what v${p.toVersion} said: there is nothing to revert`,
      { currentVersion: row.version },
    )
  }
  const reason = p.reason?.trim() ? `revert to v${p.toVersion}: ${p.reason.trim()}` : `revert to v${p.toVersion}`
  return updateDecision(ctx, {
    decisionId: p.decisionId,
    expectedVersion: p.expectedVersion,
    ...fields,
    reason,
    ...(p.sourceMessageId ? { sourceMessageId: p.sourceMessageId } : {}),
    ...(p.actorId ? { actorId: p.actorId } : {}),
  })
}
