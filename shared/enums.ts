/**
 * The one list of each small enumeration that both sides, the store and the UI name: schemas.ts builds its zod enums
 * from these (`z.enum(list)`), the store's row types and the renderer read the same lists. Kept free of zod so the
 * renderer can import it. (Agent kinds, which carry data, live in agent-kinds.ts; report kinds in report-kinds.ts.)
 *
 * The store reads them too: its enumerated columns are checked against these lists (migration 032, store/enum-words.ts),
 * so a new word is one entry here and no migration.
 */

/** The model providers Concord's own agent loop can call. */
export const providerKinds = ['openai', 'anthropic', 'openai-compatible'] as const
export type ProviderKindValue = (typeof providerKinds)[number]

/** A decision's status, in the editor's order. */
export const decisionStatuses = ['proposed', 'accepted', 'rejected', 'superseded'] as const
export type DecisionStatusValue = (typeof decisionStatuses)[number]

/** A report's verdict, and each of its claims'. */
export const verdicts = ['pass', 'fail', 'partial'] as const
export type VerdictValue = (typeof verdicts)[number]

/** What one step of a member's session is (schemas.ts's Step says what each holds). */
export const stepKinds = ['user', 'message', 'model', 'tool', 'notice', 'error', 'interrupted', 'plan'] as const
export type StepKindValue = (typeof stepKinds)[number]

/** Where a step stands. */
export const stepStatuses = [
  'queued',
  'streaming',
  'running',
  'waiting_approval',
  'done',
  'denied',
  'error',
  'interrupted',
] as const
export type StepStatusValue = (typeof stepStatuses)[number]
