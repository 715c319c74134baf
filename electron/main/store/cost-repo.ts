import type { Db } from './connection'

/** Tokens of steps with no reported cost, for one member, task (0: none) and model ('' unknown). */
export interface ModelUsageRow {
  member_id: number
  task_id: number
  model: string
  input: number
  output: number
  steps: number
}

/** Costs agents reported, for one member, task (0: none) and currency, in millionths of the currency. */
export interface ReportedCostRow {
  member_id: number
  task_id: number
  currency: string
  micros: number
  steps: number
}

/**
 * What steps cost, kept by the triggers of migration 034 with every step write: the figures read a row per member,
 * task and model (or currency), never the steps. Prices are applied by the harness (harness/workspace/money.ts).
 */
export class CostRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      usage: db.prepare<[], ModelUsageRow>('SELECT * FROM model_usage WHERE steps > 0'),
      reported: db.prepare<[], ReportedCostRow>('SELECT * FROM reported_costs WHERE steps > 0'),
      sessionCost: db.prepare<[number], { session: string | null; micros: number | null }>(
        'SELECT acp_cost_session AS session, acp_cost_micros AS micros FROM members WHERE id = ?',
      ),
      setSessionCost: db.prepare('UPDATE members SET acp_cost_session = ?, acp_cost_micros = ? WHERE id = ?'),
      addStepCost: db.prepare(
        'UPDATE steps SET cost_micros = coalesce(cost_micros, 0) + ?, cost_currency = ? WHERE id = ?',
      ),
    }
  }

  modelUsage(): ModelUsageRow[] {
    return this.s.usage.all()
  }

  reported(): ReportedCostRow[] {
    return this.s.reported.all()
  }

  /** The session total the member's agent last reported (ACP reports a session's cumulative cost). */
  sessionCost(memberId: number): { session: string | null; micros: number } {
    const r = this.s.sessionCost.get(memberId)
    return { session: r?.session ?? null, micros: r?.micros ?? 0 }
  }

  setSessionCost(memberId: number, session: string, micros: number): void {
    this.s.setSessionCost.run(session, micros, memberId)
  }

  /** A cost the agent reported, added to the step it belongs to (its tokens are then not priced again). */
  addStepCost(stepId: number, micros: number, currency: string): void {
    this.s.addStepCost.run(micros, currency, stepId)
  }
}
