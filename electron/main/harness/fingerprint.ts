import { createHash } from 'node:crypto'
import type { DecisionStatusValue } from '../store/decisions-repo'

/**
 * The normative content of a decision is its statement (whitespace-insensitive) plus whether it has
 * been withdrawn: a rejected or superseded decision no longer binds its dependents. Title and
 * rationale are not normative; neither is proposed → accepted.
 */
export function contentHash(statement: string, status: DecisionStatusValue): string {
  const normalized = statement.trim().replace(/\s+/g, ' ')
  const withdrawn = status === 'rejected' || status === 'superseded' ? status : 'in-force'
  return createHash('sha256').update(`${withdrawn}\n${normalized}`).digest('hex').slice(0, 16)
}
