// @vitest-environment happy-dom
/**
 * The friction issue 33's count removed from the way to a merged task (test/e2e/browser-actions.test.ts counts it):
 * the preset team from the provider step in one click, the model a local server lists prefilled, a recorded decision that opens with "New task on D-1", a task
 * form that starts with the decision linked and the implementer assigned and can create and start in one click, and
 * "Accept and merge" on a ready task with a branch. Each test fails without its change.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { DecisionsPanel } from '../../renderer/src/features/decisions/DecisionsPanel'
import { NewTaskForm } from '../../renderer/src/features/tasks/NewTaskForm'
import { TaskActions } from '../../renderer/src/features/tasks/TaskActions'
import { SetupWizard } from '../../renderer/src/features/team/SetupWizard'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'
import type { Decision, Member, Task } from '../../shared/schemas'

const WS = 'w00000033'
const member = (n: number, name: string, role: string): Member => ({
  id: `${WS}-m${n}`,
  workspaceId: WS,
  name,
  role,
  authority: 'proposer',
  instructions: '',
  provider: null,
  approval: 'sandboxed',
  maxSteps: 50,
  planningInterval: 0,
  network: false,
  mcpOff: [],
  runner: null,
  createdAt: '',
  updatedAt: '',
})
const d1: Decision = {
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'Web search timeout',
  statement: 'Web search gives up after 5 s.',
  rationale: '',
  status: 'accepted',
  version: 1,
  fingerprint: 'f',
  sourceMessageId: null,
  supersedes: null,
  supersededBy: null,
  createdBy: null,
  createdAt: '',
  updatedAt: '',
}
const t1: Task = {
  id: `${WS}-t1`,
  workspaceId: WS,
  key: 'T-1',
  title: 'Web search tool',
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
  readiness: { ready: true, reasons: [], deliverOn: null },
  branch: 'concord/T-1-web-search-tool',
  head: 'abcdef1234',
  merged: null,
  version: 3,
  createdAt: '',
  updatedAt: '',
}

/** A store on an API that records every call and answers from `answers` (anything else: an empty list). */
function mount(ui: ReactNode, answers: Record<string, (p: Record<string, unknown>) => unknown> = {}) {
  const calls: [string, Record<string, unknown>][] = []
  const api = {
    call: async (m: string, p: Record<string, unknown>) => {
      calls.push([m, p])
      if (answers[m]) return answers[m](p)
      if (m === 'tasks.page') return { items: [], nextCursor: null, total: 0 }
      return []
    },
    onEvent: () => () => {},
    onConnection: () => () => {},
    close: () => {},
  } as unknown as ClientApi
  const store = createAppStore(api)
  store.setState({ workspaceId: WS, workspaces: [{ id: WS, name: 'repo', repoPath: '/r', createdAt: '' }] })
  const view = render(<StoreContext.Provider value={store}>{ui}</StoreContext.Provider>)
  const called = (m: string) => calls.filter(([name]) => name === m).map(([, p]) => p)
  return { calls, called, store, ...view }
}

afterEach(cleanup)

describe('fewer actions to a merged task', () => {
  it('creates the preset team from the provider step in one click, on the provider typed there', async () => {
    let n = 0
    const { called } = mount(<SetupWizard />, {
      'members.create': (p) => member(++n, p.name as string, p.role as string),
      'providers.models': () => ({ models: [] }),
    })
    fireEvent.click(screen.getByRole('radio', { name: 'Local / OpenAI-compatible' }))
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:9/v1' } })
    expect(screen.getByTestId('preset-team-line').textContent).toContain('Lead, Implementer, Tester, Reviewer')
    fireEvent.click(screen.getByTestId('create-preset-team'))
    await waitFor(() => expect(called('members.create')).toHaveLength(4))
    expect(called('members.create').map((p) => p.role)).toEqual(['lead', 'implementer', 'tester', 'reviewer'])
    expect(
      called('members.create').every((p) => (p.provider as { baseURL: string }).baseURL === 'http://127.0.0.1:9/v1'),
    ).toBe(true)
  })

  it('prefills the model with the first one a local server lists, and leaves a model typed before it alone', async () => {
    const { called } = mount(<SetupWizard />, {
      'providers.models': () => ({ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] }),
    })
    fireEvent.click(screen.getByRole('radio', { name: 'Local / OpenAI-compatible' }))
    const model = screen.getByLabelText<HTMLInputElement>('Model')
    expect(model.value).toBe('llama3.1')
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:9/v1' } })
    await waitFor(() => expect(model.value).toBe('qwen2.5-coder:7b'), { timeout: 3000 })
    expect(called('providers.models').at(-1)).toEqual({ baseURL: 'http://127.0.0.1:9/v1' })
    expect(screen.getByTestId('listed-models').textContent).toBe('Listed at this URL: qwen2.5-coder:7b, llama3.1:8b')
    // A model the user typed is theirs: another URL's list does not replace it.
    fireEvent.change(model, { target: { value: 'my-model' } })
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'http://127.0.0.1:10/v1' } })
    await waitFor(() => expect(called('providers.models').at(-1)).toEqual({ baseURL: 'http://127.0.0.1:10/v1' }), {
      timeout: 3000,
    })
    await waitFor(() => expect(screen.getByTestId('listed-models')).toBeTruthy())
    expect(model.value).toBe('my-model')
  })

  it('opens a recorded decision, whose "New task on D-1" opens the task form on it', async () => {
    const { store } = mount(<DecisionsPanel />, {
      'decisions.create': () => d1,
      'decisions.history': () => [],
    })
    fireEvent.click(screen.getByRole('button', { name: 'New' }))
    fireEvent.change(screen.getByPlaceholderText('e.g. API style'), { target: { value: d1.title } })
    fireEvent.change(screen.getAllByRole('textbox')[1]!, { target: { value: d1.statement } })
    fireEvent.click(screen.getByRole('button', { name: 'Record decision' }))
    const detail = await screen.findByTestId('decision-detail')
    expect(detail.dataset.key).toBe('D-1')
    fireEvent.click(screen.getByTestId('new-task-on'))
    expect(store.getState()).toMatchObject({ newRecord: 'task', newTaskOn: d1.id, rightTab: 'tasks' })
  })

  it('starts a task form on the decision, assigned to the implementer, and creates and starts it in one click', async () => {
    const { store, called } = mount(<></>, {
      'tasks.create': (p) => ({ ...t1, status: 'todo', branch: null, title: p.title as string }),
      'tasks.setStatus': () => ({ ...t1, status: 'in_progress' }),
    })
    store.getState().applyMember(member(1, 'Lead', 'lead'))
    store.getState().applyMember(member(2, 'Implementer', 'implementer'))
    store.getState().applyDecision(d1)
    store.getState().startNew('task', d1.id)
    cleanup()
    render(
      <StoreContext.Provider value={store}>
        <NewTaskForm onClose={() => {}} />
      </StoreContext.Provider>,
    )
    expect(screen.getByRole<HTMLSelectElement>('combobox').value).toBe(`${WS}-m2`)
    expect(screen.getByRole('button', { name: 'D-1' }).getAttribute('aria-pressed')).toBe('true')
    fireEvent.change(screen.getByLabelText('Task title'), { target: { value: 'Web search tool' } })
    fireEvent.click(screen.getByTestId('create-start-task'))
    await waitFor(() => expect(called('tasks.setStatus')).toHaveLength(1))
    expect(called('tasks.create')[0]).toMatchObject({ assigneeId: `${WS}-m2`, decisionIds: [d1.id] })
    expect(called('tasks.setStatus')[0]).toMatchObject({ taskId: t1.id, status: 'in_progress' })
  })

  it('accepts and merges a ready task with a branch in one click', async () => {
    const { called, calls } = mount(<TaskActions task={t1} />, {
      'tasks.accept': () => ({ ...t1, status: 'accepted' }),
      'tasks.merge': () => ({ ...t1, status: 'accepted', merged: { commit: 'f'.repeat(40) } }),
    })
    fireEvent.click(screen.getByTestId('accept-merge'))
    await waitFor(() => expect(called('tasks.merge')).toHaveLength(1))
    expect(calls.map(([m]) => m).filter((m) => m.startsWith('tasks.') && m !== 'tasks.page')).toEqual([
      'tasks.accept',
      'tasks.merge',
    ])
    expect(called('tasks.merge')[0]).toMatchObject({ taskId: t1.id, strategy: 'merge' })
  })
})
