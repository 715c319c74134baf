// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Step } from '../../shared/schemas'
import { MadeIn } from '../../renderer/src/features/decisions/DecisionsPanel'
import { renderIn, storeWith } from '../fixtures/app-store'

const WS = 'w00000008'
const M = `${WS}-m1`

afterEach(cleanup)

describe("the history's source quote", () => {
  it('reads as the message renders, not its Markdown syntax', () => {
    const step = {
      id: 's1',
      memberId: M,
      kind: 'user',
      text: '**Fail** the `whole` search after 30 s',
      refs: [],
    } as unknown as Step
    renderIn(
      storeWith({ workspaceId: WS, sessions: { [M]: { steps: [step], info: {} } } } as never),
      <MadeIn stepId="s1" />,
    )
    expect(screen.getByTestId('made-in').textContent).toContain('“Fail the whole search after 30 s”')
  })
})
