/**
 * Money (issue 35): what members' work cost, per member, task and workspace. A step's cost is what its agent
 * reported (ACP usage_update) where it did, else its tokens × its model's price in the workspace's table; a step with
 * neither stays unpriced — shown "not reported", never $0. The sums come from the rows the store keeps per member,
 * task and model (migration 034), so editing a price re-prices the whole history at once.
 */
import type { BudgetState, Cost, CostFigures, ModelPrice } from '../../../../shared/schemas'
import type { Ctx } from '../context'
import { makeId, makeKey } from '../ids'

/** List prices (US dollars per million tokens) of a few well-known models when this was written; editable. */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
}

export const PRICE_CURRENCY = 'USD'

/** The counter of automatic turns the budget held (auto-turn-queue.ts bumps it). */
export const HELD_BY_BUDGET = 'auto_turns.held_by_budget'

/** The price of a model: its own entry, else its family's for a dated name (`claude-sonnet-4-5-20250929`). */
export function priceOf(prices: Record<string, ModelPrice>, model: string): ModelPrice | null {
  if (!model) return null
  const own = prices[model]
  if (own) return own
  const family = Object.keys(prices)
    .filter((k) => model.startsWith(`${k}-`) && /^\d/.test(model.slice(k.length + 1)))
    .sort((a, b) => b.length - a.length)[0]
  return family ? prices[family]! : null
}

/** Sums in millionths, so that adding many small costs stays exact until it is shown. */
class CostSum {
  private readonly micros = new Map<string, number>()
  unpricedTokens = 0
  unpricedSteps = 0

  add(currency: string, micros: number): void {
    this.micros.set(currency, (this.micros.get(currency) ?? 0) + micros)
  }

  usd(): number {
    return (this.micros.get(PRICE_CURRENCY) ?? 0) / 1e6
  }

  cost(): Cost {
    return {
      amounts: [...this.micros]
        .filter(([, m]) => m !== 0)
        .sort(([a], [b]) => (a === PRICE_CURRENCY ? -1 : b === PRICE_CURRENCY ? 1 : a.localeCompare(b)))
        .map(([currency, m]) => ({ currency, amount: m / 1e6 })),
      unpricedTokens: this.unpricedTokens,
      unpricedSteps: this.unpricedSteps,
    }
  }
}

interface Sums {
  total: CostSum
  members: Map<number, CostSum>
  tasks: Map<number, CostSum>
}

function sums(ctx: Ctx, prices: Record<string, ModelPrice>): Sums {
  const s: Sums = { total: new CostSum(), members: new Map(), tasks: new Map() }
  const each = (memberId: number, taskId: number, f: (c: CostSum) => void) => {
    const of = <K>(m: Map<K, CostSum>, k: K) => m.get(k) ?? m.set(k, new CostSum()).get(k)!
    f(s.total)
    f(of(s.members, memberId))
    if (taskId) f(of(s.tasks, taskId))
  }
  for (const r of ctx.store.cost.reported()) each(r.member_id, r.task_id, (c) => c.add(r.currency, r.micros))
  for (const u of ctx.store.cost.modelUsage()) {
    const price = priceOf(prices, u.model)
    each(u.member_id, u.task_id, (c) => {
      if (price) c.add(PRICE_CURRENCY, Math.round(u.input * price.input + u.output * price.output))
      else {
        c.unpricedTokens += u.input + u.output
        c.unpricedSteps += u.steps
      }
    })
  }
  return s
}

type MoneySettings = { prices: Record<string, ModelPrice>; budget: number | null }

/** The workspace's spend (US dollars) against its budget, or null without one. */
export function budgetState(ctx: Ctx, settings: MoneySettings, spent?: number): BudgetState | null {
  if (settings.budget === null) return null
  const usd = spent ?? sums(ctx, settings.prices).total.usd()
  const held = ctx.store.log.counters().get(HELD_BY_BUDGET) ?? 0
  return { amount: settings.budget, spent: usd, reached: usd >= settings.budget, held }
}

/** The cost figures of metrics.get. */
export function costFigures(ctx: Ctx, settings: MoneySettings): CostFigures {
  const s = sums(ctx, settings.prices)
  const titles = new Map(ctx.store.usage.perTask().map((t) => [t.id, t.title]))
  return {
    total: s.total.cost(),
    perMember: [...s.members]
      .sort(([a], [b]) => a - b)
      .map(([id, c]) => ({ memberId: makeId(ctx.wsId, 'member', id), cost: c.cost() })),
    perTask: [...s.tasks]
      .sort(([a], [b]) => a - b)
      .map(([id, c]) => ({
        taskId: makeId(ctx.wsId, 'task', id),
        key: makeKey('task', id),
        title: titles.get(id) ?? ctx.store.tasks.get(id)?.title ?? '',
        cost: c.cost(),
      })),
    budget: budgetState(ctx, settings, s.total.usd()),
  }
}
