// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import type { Step } from '../../shared/schemas'
import { StepRow } from '../../renderer/src/features/session/StepRow'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'
import { buildRows } from '../../renderer/src/stores/steps'

const WS = 'w00000004'
const M = `${WS}-m1`
const base = (over: Partial<Step>): Step => ({
  id: 's',
  seq: 1,
  memberId: M,
  turnId: 'turn1',
  kind: 'model',
  status: 'done',
  text: '',
  toolCalls: [],
  tool: null,
  fromMemberId: null,
  taskId: null,
  usage: null,
  changes: null,
  refs: [],
  startedAt: '2026-01-01T00:00:00Z',
  endedAt: '2026-01-01T00:00:01Z',
  ...over,
})

afterEach(cleanup)

describe('the turn changes line', () => {
  it('shows under a turn that ended with submit_report (its tool step folded into the reply)', () => {
    const args = '{"kind":"test"}'
    const steps = [
      base({
        id: 's1',
        text: 'Done, reporting.',
        toolCalls: [{ id: 'c1', name: 'submit_report', argumentsText: args }],
      }),
      base({
        id: 's2',
        seq: 2,
        kind: 'tool',
        text: 'R-1 submitted',
        tool: { callId: 's2', toolCallId: 'c1', name: 'submit_report', argumentsText: args, isError: false },
        changes: [
          { path: 'src/search.ts', status: 'added' },
          { path: 'app.ts', status: 'modified' },
        ],
      }),
    ]
    const rows = buildRows(steps)
    expect(rows).toHaveLength(1)
    const api = {
      call: async () => [],
      onEvent: () => () => {},
      onConnection: () => () => {},
      close: () => {},
    } as unknown as ClientApi
    const store = createAppStore(api)
    store.setState({ workspaceId: WS, sessions: { [M]: { info: { pendingApprovals: [] } } } } as never)
    render(
      <StoreContext.Provider value={store}>
        <StepRow row={rows[0]!} memberId={M} actions={{ onRecord: () => {} }} highlighted={false} />
      </StoreContext.Provider>,
    )
    expect(screen.getByTestId('turn-changes').textContent).toBe('2 files changed')
  })
})
