/**
 * What counts as a normative change of a decision — the one home of the rule, read by the core (the
 * fingerprint that flags dependents) and by the editor (its preview and labels).
 *
 * The normative content is the statement, compared whitespace-insensitively, plus whether the decision
 * is in force: a rejected or superseded decision no longer binds its dependents. Title and rationale are
 * not normative, and neither is a move between the in-force statuses (proposed → accepted).
 */
import type { DecisionStatusValue } from './enums'

export type DecisionStatusWord = DecisionStatusValue

export interface NormativeContent {
  statement: string
  status: DecisionStatusWord
}

export function normalizeStatement(statement: string): string {
  return statement.trim().replace(/\s+/g, ' ')
}

/** 'in-force', or the withdrawn status itself. */
export function forceOf(status: DecisionStatusWord): 'in-force' | 'rejected' | 'superseded' {
  return status === 'rejected' || status === 'superseded' ? status : 'in-force'
}

/** The text the core hashes into a decision's content fingerprint (its format is stored: never change it). */
export function normativeText(c: NormativeContent): string {
  return `${forceOf(c.status)}\n${normalizeStatement(c.statement)}`
}

export function isNormativeChange(before: NormativeContent, after: NormativeContent): boolean {
  return normativeText(before) !== normativeText(after)
}

/** Whether a status move alone binds or releases dependents (proposed → accepted does not). */
export function isNormativeStatusMove(from: DecisionStatusWord, to: DecisionStatusWord): boolean {
  return forceOf(from) !== forceOf(to)
}
