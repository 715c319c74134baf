/** How a cost reads: an amount per currency, and what no one reported or priced — never shown as 0. */
import type { Cost } from '../../../shared/schemas'
import { compactNumber } from './format'

const symbols: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' }

/** An amount with enough digits that a few cents of tokens do not read as $0.00: $1.20, $0.25, $0.006, $0.0006. */
export function moneyText(amount: number, currency = 'USD'): string {
  const n = amount === 0 || amount >= 1 ? amount.toFixed(2) : amount.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')
  const symbol = symbols[currency]
  return symbol ? `${symbol}${n}` : `${n} ${currency}`
}

/** "$0.006", "not reported", or "$0.006 + 1.2k tokens not reported" (their price is unknown, not 0). */
export function costText(cost: Cost): string {
  const amounts = cost.amounts.map((a) => moneyText(a.amount, a.currency)).join(' + ')
  if (!cost.unpricedSteps) return amounts || moneyText(0)
  const unknown = cost.unpricedTokens ? `${compactNumber(cost.unpricedTokens)} tokens not reported` : 'not reported'
  return amounts ? `${amounts} + ${unknown}` : 'not reported'
}

/** Why a cost is (partly) not reported, for its tooltip. */
export function costTitle(cost: Cost): string | undefined {
  if (!cost.unpricedSteps) return undefined
  return `${cost.unpricedSteps} model ${cost.unpricedSteps === 1 ? 'reply' : 'replies'} (${cost.unpricedTokens.toLocaleString()} tokens) with no reported cost and no price for the model: add its price in the Figures tab's price table`
}

/** What the workspace's budget (in US dollars) does not count: costs in other currencies, replies with no price. */
export function notCountedText(total: Cost): string | null {
  const parts = total.amounts.filter((a) => a.currency !== 'USD').map((a) => moneyText(a.amount, a.currency))
  if (total.unpricedSteps)
    parts.push(
      total.unpricedTokens
        ? `${compactNumber(total.unpricedTokens)} tokens with no price`
        : `${total.unpricedSteps} ${total.unpricedSteps === 1 ? 'reply' : 'replies'} with no cost reported`,
    )
  return parts.length ? `Not counted against it: ${parts.join(', ')}.` : null
}
