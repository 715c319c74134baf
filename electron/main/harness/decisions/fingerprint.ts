import { createHash } from 'node:crypto'
import { normativeText } from '../../../../shared/normative'
import type { DecisionStatusValue } from '../../store/decisions-repo'

/** The content fingerprint of a decision: a hash of its normative text (the rule lives in shared/normative.ts). */
export function contentHash(statement: string, status: DecisionStatusValue): string {
  return createHash('sha256').update(normativeText({ statement, status })).digest('hex').slice(0, 16)
}
