// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import type { AcceptanceReason, Task, TaskReadiness } from '../../shared/schemas'
import { TaskActions } from '../../renderer/src/features/tasks/TaskActions'
import { createAppStore, StoreContext, useApp } from '../../renderer/src/stores/app-store'

const WS = 'w00000006'
const missing: AcceptanceReason = {
  code: 'evidence_missing',
  reportId: null,
  message: 'T-1 has no test report',
  reportKind: 'test',
  action: {
    memberId: `${WS}-m2`,
    memberName: 'Tess',
    taskId: `${WS}-t1`,
    commit: 'abcdef1234',
    label: 'Ask Tess for a test report',
    text: 'Please check T-1 on abcdef1 and submit a test report on it.',
  },
}
const notReady: TaskReadiness = { ready: false, reasons: [missing], deliverOn: null }
const ready: TaskReadiness = { ready: true, reasons: [], deliverOn: null }
const task = (readiness: TaskReadiness, over: Partial<Task> = {}): Task => ({
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
  readiness,
  branch: null,
  head: null,
  merged: null,
  version: 3,
  createdAt: '',
  updatedAt: '',
  ...over,
})

/** The card as the board shows it: the task the store holds, its API calls recorded (tasks.accept answered by `accept`). */
function card(first: Task, accept?: () => unknown) {
  const calls: string[] = []
  const api = {
    call: async (m: string) => {
      calls.push(m)
      if (m === 'tasks.accept' && accept) return accept()
      throw new Error(`unexpected ${m}`)
    },
    onEvent: () => () => {},
    onConnection: () => () => {},
    close: () => {},
  } as unknown as ClientApi
  const store = createAppStore(api)
  store.setState({ workspaceId: WS })
  store.getState().applyTask(first)
  function Shown() {
    const t = useApp((s) => s.tasks[first.id]!)
    return <TaskActions task={t} />
  }
  const view = render(
    <StoreContext.Provider value={store}>
      <Shown />
    </StoreContext.Provider>,
  )
  return { calls, store, ...view }
}

afterEach(cleanup)

describe("the task card's one answer", () => {
  it("shows the task's readiness as the core gave it, and asks the core nothing to show it", async () => {
    const { calls, store, container } = card(task(notReady))
    expect(screen.getByTestId('refusal').textContent).toContain('T-1 has no test report')
    expect(screen.getByTestId('refusal-action').textContent).toBe('Ask Tess for a test report')
    expect(screen.queryByTestId('ready-to-accept')).toBeNull()
    // The tester's report came in: the task comes anew (task.changed) with the core's new answer.
    act(() => {
      store.getState().applyTask(task(ready))
    })
    await screen.findByTestId('ready-to-accept')
    expect(screen.queryByTestId('refusal')).toBeNull()
    expect(container.textContent).not.toContain('no test report')
    // The card asked nothing; the store's tab count is read again when a task comes (lists-slice), not by the card.
    expect(calls.filter((m) => m !== 'tasks.page')).toEqual([])
  })

  it('never shows "Ready to accept" above a later refusal, and shows the refusal\'s own reasons', async () => {
    // The board's copy says ready (e.g. patched from an edit before its refetch); the core refuses.
    const stale: AcceptanceReason = {
      code: 'evidence_stale',
      reportId: `${WS}-r1`,
      message: 'R-1 is based on D-1 v1; D-1 is at v2',
    }
    const { calls, store, container } = card(task(ready), () => {
      throw Object.assign(new Error('T-1 cannot be accepted: R-1 is based on D-1 v1; D-1 is at v2'), {
        code: 'evidence_stale',
        details: { reasons: [stale] },
      })
    })
    expect(screen.getByTestId('ready-to-accept')).toBeTruthy()
    fireEvent.click(screen.getByTestId('accept-task'))
    expect((await screen.findByTestId('refusal')).textContent).toContain('R-1 is based on D-1 v1; D-1 is at v2')
    expect(screen.queryByTestId('ready-to-accept')).toBeNull()
    expect(container.textContent).not.toContain('cannot be accepted')
    // The task comes anew: its readiness is the newer answer, and it replaces the refusal.
    act(() => {
      store.getState().applyTask(task(notReady, { version: 4 }))
    })
    expect(screen.getByTestId('refusal').textContent).toContain('T-1 has no test report')
    expect(screen.getByTestId('refusal').textContent).not.toContain('R-1 is based on')
    expect(calls.filter((m) => m !== 'tasks.page')).toEqual(['tasks.accept'])
  })

  it('offers the delivery its readiness names on a task in progress, and nothing of acceptance', () => {
    const offer: TaskReadiness = {
      ready: false,
      reasons: [],
      deliverOn: { commit: 'fedcba9876543210', reportId: `${WS}-r2`, reportKey: 'R-2' },
    }
    card(task(offer, { status: 'in_progress', artifact: null }))
    expect(screen.getByTestId('deliver-on').textContent).toBe('Deliver on fedcba9')
    expect(screen.queryByTestId('accept-task')).toBeNull()
    expect(screen.queryByTestId('refusal')).toBeNull()
  })
})
