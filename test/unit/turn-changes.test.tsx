// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Step } from '../../shared/schemas'
import { StepRow } from '../../renderer/src/features/session/StepRow'
import { renderIn, stepOf, storeWith } from '../fixtures/app-store'
import { buildRows } from '../../renderer/src/stores/steps'

const WS = 'w00000004'
const M = `${WS}-m1`
const base = (over: Partial<Step>): Step => stepOf({ id: 's', seq: 1, memberId: M, turnId: 'turn1', ...over })

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
    const store = storeWith({ workspaceId: WS, sessions: { [M]: { info: { pendingApprovals: [] } } } } as never)
    renderIn(store, <StepRow row={rows[0]!} memberId={M} actions={{ onRecord: () => {} }} highlighted={false} />)
    expect(screen.getByTestId('turn-changes').textContent).toBe('2 files changed')
  })
})
