// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { MethodName } from '../../shared/contract'
import type { Task } from '../../shared/schemas'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { TaskBoard } from '../../renderer/src/features/tasks/TaskBoard'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'

const WS = 'w00000001'
const task = (n: number, status: Task['status']): Task => ({
  id: `${WS}-t${n}`,
  workspaceId: WS,
  key: `T-${n}`,
  title: `Task ${n}`,
  spec: '',
  acceptanceCriteria: '',
  status,
  assigneeId: null,
  flag: null,
  flagged: false,
  artifact: status === 'delivered' ? { commit: 'a'.repeat(40), digest: null } : null,
  links: [],
  blockedBy: [],
  requiredReports: ['test'],
  readiness: { ready: false, reasons: [], deliverOn: null },
  branch: null,
  head: null,
  merged: null,
  version: 1,
  createdAt: '',
  updatedAt: '',
})

/** A store whose API answers tasks.page from `rows` (by status) and records every other call. */
function board(rows: Task[], answers: Partial<Record<MethodName, (p: any) => unknown>>) {
  const calls: [string, unknown][] = []
  const api: ClientApi = {
    call: (async (m: MethodName, p: { status?: Task['status'][] }) => {
      if (m === 'tasks.page') {
        const items = rows.filter((t) => !p.status || p.status.includes(t.status))
        return { items, nextCursor: null, total: items.length }
      }
      // Only the moves are recorded; the card's other reads are not this test's business.
      if (m === 'tasks.setStatus' || m === 'tasks.accept') calls.push([m, p])
      const a = answers[m]
      if (!a) throw Object.assign(new Error(`unexpected ${m}`), { code: 'internal' })
      return a(p)
    }) as ClientApi['call'],
    onEvent: () => () => {},
    onConnection: () => () => {},
    close: () => {},
  }
  const store = createAppStore(api)
  store.setState({ workspaceId: WS })
  render(
    <StoreContext.Provider value={store}>
      <TaskBoard />
    </StoreContext.Provider>,
  )
  return calls
}

/** Drops the card on the column the way the browser does: the task id travels in the drag data. */
function drop(key: string, lane: string) {
  const card = screen.getAllByTestId('task-card').find((c) => c.dataset.key === key)!
  const data = new Map<string, string>()
  const dataTransfer = {
    setData: (k: string, v: string) => data.set(k, v),
    getData: (k: string) => data.get(k) ?? '',
    get types() {
      return [...data.keys()]
    },
    effectAllowed: '',
    dropEffect: '',
  }
  fireEvent.dragStart(card, { dataTransfer })
  const column = screen.getAllByTestId('board-column').find((c) => c.dataset.lane === lane)!
  fireEvent.dragOver(column, { dataTransfer })
  fireEvent.drop(column, { dataTransfer })
}

afterEach(cleanup)

describe('task board moves', () => {
  it('accepts a delivered card dropped on "accepted" through tasks.accept and lists why it was refused', async () => {
    const calls = board([task(1, 'delivered')], {
      'tasks.accept': () => {
        throw Object.assign(new Error('T-1 cannot be accepted'), {
          code: 'evidence_missing',
          details: { reasons: [{ code: 'evidence_missing', reportId: null, message: 'No passing test report' }] },
        })
      },
    })
    await screen.findByTestId('task-card')
    drop('T-1', 'accepted')
    const refusal = await screen.findByTestId('move-refusal')
    expect(refusal.textContent).toContain('No passing test report')
    expect(calls).toEqual([['tasks.accept', { taskId: `${WS}-t1` }]])
    expect(screen.getByTestId('task-card').dataset.status).toBe('delivered')
  })

  it('sends a refused move to the core (no artifact asked) and asks for the artifact only for an allowed delivery', async () => {
    const refused = Object.assign(
      new Error('T-1 is “to do”: it can move to “in progress”, “blocked” or “cancelled”, not to “delivered”'),
      { code: 'invalid_transition' },
    )
    const calls = board([task(1, 'todo'), task(2, 'in_progress')], {
      'tasks.setStatus': () => {
        throw refused
      },
    })
    await waitFor(() => expect(screen.getAllByTestId('task-card')).toHaveLength(2))
    drop('T-1', 'delivered')
    expect((await screen.findByTestId('move-refusal')).textContent).toContain('not to “delivered”')
    expect(calls).toEqual([['tasks.setStatus', { taskId: `${WS}-t1`, status: 'delivered' }]])
    drop('T-2', 'delivered')
    expect(screen.getByLabelText('Delivered artifact')).toBeTruthy()
    expect(calls).toHaveLength(1)
  })
})
