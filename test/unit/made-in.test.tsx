// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import type { Step } from '../../shared/schemas'
import { MadeIn } from '../../renderer/src/features/decisions/DecisionsPanel'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'

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
    const api = {
      call: async () => [],
      onEvent: () => () => {},
      onConnection: () => () => {},
      close: () => {},
    } as unknown as ClientApi
    const store = createAppStore(api)
    store.setState({ workspaceId: WS, sessions: { [M]: { steps: [step], info: {} } } } as never)
    render(
      <StoreContext.Provider value={store}>
        <MadeIn stepId="s1" />
      </StoreContext.Provider>,
    )
    expect(screen.getByTestId('made-in').textContent).toContain('“Fail the whole search after 30 s”')
  })
})
