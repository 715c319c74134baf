// @vitest-environment happy-dom
import { cleanup } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Decision, Step } from '../../shared/schemas'
import { StepRow } from '../../renderer/src/features/session/StepRow'
import { renderIn, stepOf, storeWith } from '../fixtures/app-store'
import { buildRows } from '../../renderer/src/stores/steps'

const WS = 'w00000007'
const M = `${WS}-m1`
const decision = {
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'Search timeout',
  statement: 'Gives up after 5 s',
  rationale: '',
  status: 'accepted',
  version: 1,
} as Decision
const user = (n: number, text: string): Step =>
  stepOf({ id: `s${n}`, seq: n, memberId: M, turnId: `turn${n}`, kind: 'user', text })

afterEach(cleanup)

describe('decision cards in a session', () => {
  it('show once, under the first mention; later mentions keep their chips', () => {
    const steps = [user(1, 'Use D-1 for the search.'), user(2, 'Still D-1, right?'), user(3, 'And D-1 again.')]
    const store = storeWith({
      workspaceId: WS,
      decisions: { [decision.id]: decision },
      sessions: { [M]: { steps, info: { pendingApprovals: [] } } },
    } as never)
    const { container } = renderIn(
      store,
      <>
        {buildRows(steps).map((row) => (
          <StepRow key={row.key} row={row} memberId={M} actions={{ onRecord: () => {} }} highlighted={false} />
        ))}
      </>,
    )
    expect(container.querySelectorAll('[data-testid=decision-card]')).toHaveLength(1)
    expect(container.querySelector('[data-step-id=s1] [data-testid=decision-card]')).not.toBeNull()
    expect(container.querySelectorAll('[data-step-id=s3] [data-ref="D-1"]')).toHaveLength(1)
  })
})
