// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import type { Report, Task, TaskReadiness } from '../../shared/schemas'
import { TaskActions } from '../../renderer/src/features/tasks/TaskActions'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'

const WS = 'w00000006'
const task: Task = {
  id: `${WS}-t1`,
  workspaceId: WS,
  key: 'T-1',
  title: 'Web search',
  spec: '',
  acceptanceCriteria: '',
  status: 'delivered',
  assigneeId: null,
  flag: null,
  flagged: false,
  artifact: { commit: 'abcdef1234', digest: null },
  links: [],
  blockedBy: [],
  requiredReports: ['test'],
  branch: null,
  head: null,
  merged: null,
  version: 3,
  createdAt: '',
  updatedAt: '',
}
const missing = { code: 'evidence_missing' as const, reportId: null, message: 'T-1 has no test report' }

afterEach(cleanup)

describe("the task card's one answer", () => {
  it('never shows "Ready to accept" above an older refusal', async () => {
    // The core: no test report at first, then one passing report arrives.
    let hasReport = false
    const api = {
      call: async (m: string) => {
        if (m === 'tasks.readiness')
          return {
            taskId: task.id,
            ready: hasReport,
            reasons: hasReport ? [] : [missing],
            deliverOn: null,
          } satisfies TaskReadiness
        if (m === 'tasks.accept')
          throw Object.assign(new Error('T-1 cannot be accepted: T-1 has no test report'), {
            code: 'evidence_missing',
            details: { reasons: [missing] },
          })
        throw new Error(`unexpected ${m}`)
      },
      onEvent: () => () => {},
      onConnection: () => () => {},
      close: () => {},
    } as unknown as ClientApi
    const store = createAppStore(api)
    store.setState({ workspaceId: WS })
    const { container } = render(
      <StoreContext.Provider value={store}>
        <TaskActions task={task} />
      </StoreContext.Provider>,
    )
    fireEvent.click(screen.getByTestId('accept-task'))
    await waitFor(() => expect(screen.getByTestId('refusal').textContent).toContain('T-1 has no test report'))
    // The tester's report comes in: the card asks again and says one thing.
    hasReport = true
    const report = { id: `${WS}-r1`, key: 'R-1', taskId: task.id, validity: 'valid' } as Report
    act(() => store.setState({ reports: { [report.id]: report } }))
    await screen.findByTestId('ready-to-accept')
    expect(screen.queryByTestId('refusal')).toBeNull()
    expect(container.textContent).not.toContain('cannot be accepted')
    expect(container.textContent).not.toContain('no test report')
  })
})
