import { z } from 'zod'

/** A model's list price in US dollars per million tokens, read and written. */
export const ModelPrice = z.strictObject({
  input: z.number().min(0).max(100_000),
  output: z.number().min(0).max(100_000),
})
export type ModelPrice = z.infer<typeof ModelPrice>

/** The workspace's price table: model name → price (a dated name, `name-2025…`, takes its family's price). */
export const PriceTable = z
  .record(z.string().trim().min(1).max(200), ModelPrice)
  .refine((t) => Object.keys(t).length <= 200, 'at most 200 models')

/** The workspace budget in US dollars: reached, Concord starts no automatic turn. */
export const Budget = z.number().positive().max(1_000_000_000)

/**
 * What some work cost. `amounts`: per currency (priced tokens are US dollars; an agent may report another unit).
 * `unpricedTokens`/`unpricedSteps`: steps whose cost no one reported and whose model has no price; their cost is
 * unknown — "not reported", never 0. Nothing in `amounts` and steps unpriced: the cost is not reported.
 */
export interface Cost {
  amounts: { currency: string; amount: number }[]
  unpricedTokens: number
  unpricedSteps: number
}

/** The budget against what was spent (US dollars): reached, automatic turns are paused. */
export interface BudgetState {
  amount: number
  spent: number
  reached: boolean
  /** Automatic turns Concord did not start because the budget was spent (their notices stay pending). */
  held: number
}

/** metrics.get's money: per member, per task and for the workspace, and the budget if one is set. */
export interface CostFigures {
  total: Cost
  perMember: { memberId: string; cost: Cost }[]
  perTask: { taskId: string; key: string; title: string; cost: Cost }[]
  budget: BudgetState | null
}
