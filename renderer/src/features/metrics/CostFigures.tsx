/**
 * Money on the Figures tab (issue 35): the workspace's cost, per member and per task — reported by agents, or
 * priced from the workspace's table — the budget and whether it paused automatic turns, and the price table.
 */
import { useState } from 'react'
import type { BudgetState, Cost, Metrics } from '../../../../shared/schemas'
import { SubmitForm } from '../../components/SubmitForm'
import { ErrorText } from '../../components/ui'
import { costText, costTitle, moneyText, notCountedText } from '../../lib/money'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import { FigureTable } from './FigureTable'
import { PriceTable } from './PriceTable'

function CostCell({ cost, testId }: { cost: Cost; testId?: string }) {
  const text = costText(cost)
  return (
    <td className={text === 'not reported' ? 'muted' : undefined} title={costTitle(cost)} data-testid={testId}>
      {text}
    </td>
  )
}

export function CostFigures({ m }: { m: Metrics }) {
  const members = useApp((s) => s.members)
  const { cost } = m
  return (
    <div className="cost-figures" data-testid="cost-figures">
      <div className="small" data-testid="cost-total">
        <strong>{costText(cost.total)}</strong> <span className="muted">in total</span>
      </div>
      <BudgetLine budget={cost.budget} total={cost.total} />
      <FigureTable heads={['Member', 'cost']} empty={cost.perMember.length === 0}>
        {cost.perMember.map((r) => (
          <tr key={r.memberId} data-testid="member-cost" data-member={members[r.memberId]?.name ?? r.memberId}>
            <td>{members[r.memberId]?.name ?? r.memberId}</td>
            <CostCell cost={r.cost} />
          </tr>
        ))}
      </FigureTable>
      {cost.perTask.length > 0 && (
        <FigureTable heads={['Task', 'cost']}>
          {cost.perTask.map((r) => (
            <tr key={r.taskId}>
              <td>
                {r.key} <span className="muted">{r.title}</span>
              </td>
              <CostCell cost={r.cost} />
            </tr>
          ))}
        </FigureTable>
      )}
      <BudgetForm />
      <PriceTable />
    </div>
  )
}

/**
 * The budget against what was spent; reached, it says that automatic turns are paused, and why. What it cannot count
 * (another currency, a model with no price) is said, never taken as $0.
 */
function BudgetLine({ budget, total }: { budget: BudgetState | null; total: Cost }) {
  if (!budget) return null
  const notCounted = notCountedText(total)
  const tail = notCounted ? ` ${notCounted}` : ''
  if (!budget.reached)
    return (
      <div className="muted small" data-testid="budget-state">
        Budget {moneyText(budget.amount)}: {moneyText(budget.spent)} spent.{tail}
      </div>
    )
  return (
    <div className="budget-reached small" role="status" data-testid="budget-state">
      Budget {moneyText(budget.amount)} reached ({moneyText(budget.spent)} spent): automatic turns are paused
      {budget.held ? ` (${budget.held} held)` : ''}. Your own messages still go through; raise or remove the budget to
      resume them.{tail}
    </div>
  )
}

function BudgetForm() {
  const settings = useApp((s) => s.workspaceSettings)
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const [draft, setDraft] = useState<string | null>(null)
  const value = draft ?? (settings?.budget == null ? '' : String(settings.budget))
  const save = useAction(async () => {
    if (!workspaceId) return
    const text = value.trim()
    // Sent as typed: the server names a bad amount rather than this form guessing one.
    const next = await api.call('workspaces.update', { workspaceId, budget: text ? Number(text) : null })
    if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    setDraft(null)
    void store.getState().refreshMetrics()
  })
  if (!settings) return null
  return (
    <SubmitForm className="budget-form small" onSubmit={() => void save.run()}>
      <label>
        Budget (US dollars){' '}
        <input
          data-testid="budget-input"
          inputMode="decimal"
          placeholder="none"
          value={value}
          onChange={(e) => setDraft(e.target.value)}
        />
      </label>{' '}
      <button className="btn small" type="submit" disabled={save.pending || draft === null} data-testid="budget-save">
        Save
      </button>
      <span className="muted"> Reached, Concord starts no automatic turn.</span>
      <ErrorText error={save.error?.message} />
    </SubmitForm>
  )
}
