/**
 * The one rule every change to a decision follows (an edit, a revert, a proposal): it is made against the version it
 * read, and refused with version_conflict when the decision is at another one — checked before the change, and again
 * by the compare-and-set that writes it (a change that landed in between).
 */
import { ApiError } from '../../../../shared/errors'
import { makeKey } from '../ids'

/** What was made against a version: named in the refusal. */
export type VersionedChange = 'edit' | 'revert' | 'proposal'

/** Throws version_conflict unless the decision is at `expected`. */
export function assertAtVersion(
  decision: { id: number; version: number },
  expected: number,
  what: VersionedChange,
): void {
  if (decision.version !== expected) throw versionConflict(decision.id, decision.version, expected, what)
}

/** The refusal itself: the version the decision is at, the one the change was made against, and what to do. */
export function versionConflict(id: number, current: number, expected: number, what: VersionedChange): ApiError {
  return new ApiError(
    'version_conflict',
    `${makeKey('decision', id)} is at v${current}, but this ${what} was made against v${expected}; reload it and make the ${what} again`,
    { currentVersion: current },
  )
}
