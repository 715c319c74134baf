/** How a cost reads (issue 35): a cost no one reported or priced is "not reported", never $0. */
import { describe, expect, it } from 'vitest'
import { costText, moneyText, notCountedText } from '../../renderer/src/lib/money'

const cost = (amounts: [string, number][], unpricedTokens = 0, unpricedSteps = 0) => ({
  amounts: amounts.map(([currency, amount]) => ({ currency, amount })),
  unpricedTokens,
  unpricedSteps,
})

describe('costText', () => {
  it('says "not reported" for unpriced work, never $0', () => {
    expect(costText(cost([], 1200, 1))).toBe('not reported')
    expect(costText(cost([['USD', 0.006]], 1200, 1))).toBe('$0.006 + 1.2k tokens not reported')
    expect(costText(cost([], 0, 0))).toBe('$0.00')
  })

  it('keeps the digits a few cents of tokens need, per currency', () => {
    expect(costText(cost([['USD', 0.25]]))).toBe('$0.25')
    expect(
      costText(
        cost([
          ['USD', 1.2],
          ['credits', 3],
        ]),
      ),
    ).toBe('$1.20 + 3.00 credits')
    expect(moneyText(0.0006)).toBe('$0.0006')
    expect(moneyText(0.0066)).toBe('$0.0066')
    expect(moneyText(12)).toBe('$12.00')
  })
})

describe('notCountedText', () => {
  it('names what the budget (US dollars) cannot count: other currencies and work with no price', () => {
    expect(notCountedText(cost([['USD', 1]]))).toBeNull()
    expect(
      notCountedText(
        cost(
          [
            ['USD', 1],
            ['EUR', 2.5],
          ],
          1200,
          2,
        ),
      ),
    ).toBe('Not counted against it: €2.50, 1.2k tokens with no price.')
    expect(notCountedText(cost([], 0, 1))).toBe('Not counted against it: 1 reply with no cost reported.')
  })
})
