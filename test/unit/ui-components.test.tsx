// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { MethodName } from '../../shared/contract'
import type { Decision, Task } from '../../shared/schemas'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { Markdown } from '../../renderer/src/components/Markdown'
import { loadHighlighter } from '../../renderer/src/components/markdown-render'
import { Modal } from '../../renderer/src/components/ui'
import { useState } from 'react'
import { DecisionCard } from '../../renderer/src/features/decisions/DecisionCard'
import { TaskBoard } from '../../renderer/src/features/tasks/TaskBoard'
import { ToolCall } from '../../renderer/src/features/session/ToolCall'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'
import type { AppStore } from '../../renderer/src/stores/types'
import { zeroCounts } from '../../electron/main/harness/decisions/impact'

/** An impact's counts with nothing affected. */
const noCounts = zeroCounts()

const WS = 'w00000001'
const decision = (version: number, statement: string): Decision => ({
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'API style',
  statement,
  rationale: '',
  status: 'accepted',
  version,
  fingerprint: `f${version}`,
  sourceMessageId: null,
  supersedes: null,
  supersededBy: null,
  createdBy: null,
  createdAt: '',
  updatedAt: '',
})
const delivered: Task = {
  id: `${WS}-t1`,
  workspaceId: WS,
  key: 'T-1',
  title: 'Build the endpoints',
  spec: '',
  acceptanceCriteria: '',
  status: 'delivered',
  assigneeId: null,
  flag: 'needs_reverification',
  flagged: true,
  artifact: { commit: 'abcdef1234', digest: null },
  links: [{ decisionId: `${WS}-d1`, decisionKey: 'D-1', pinnedVersion: 1, currentVersion: 2, state: 'suspect' }],
  blockedBy: [],
  requiredReports: ['test'],
  readiness: { ready: false, reasons: [], deliverOn: null },
  branch: null,
  head: null,
  merged: null,
  version: 3,
  createdAt: '',
  updatedAt: '',
}

function api(answers: Partial<Record<MethodName, (p: any) => unknown>>): ClientApi {
  return {
    call: (async (m: MethodName, p: unknown) => {
      const a = answers[m]
      if (!a) throw Object.assign(new Error(`unexpected ${m}`), { code: 'internal' })
      return a(p)
    }) as ClientApi['call'],
    onEvent: () => () => {},
    onConnection: () => () => {},
    close: () => {},
  }
}

function mount(store: AppStore, ui: React.ReactElement) {
  return render(<StoreContext.Provider value={store}>{ui}</StoreContext.Provider>)
}

function storeWith(answers: Partial<Record<MethodName, (p: any) => unknown>> = {}): AppStore {
  const store = createAppStore(api(answers))
  store.setState({ workspaceId: WS, decisions: { [`${WS}-d1`]: decision(1, 'REST with JSON') } })
  return store
}

afterEach(cleanup)

describe('Markdown', () => {
  // The highlighter loads after the first screen (markdown-highlight.test.tsx covers the wait): here it is loaded.
  beforeAll(() => loadHighlighter())
  it('renders a streaming reply as Markdown while it grows, however long its last block is', () => {
    const store = storeWith()
    const long = 'The handler keeps **D-1** in mind. '.repeat(150)
    const { container, rerender } = mount(store, <Markdown text={`Intro **bold**\n\n${long}`} streaming />)
    // The growing block is 5,000+ characters: still Markdown (strong, live chips), not plain text.
    expect(long.length).toBeGreaterThan(5000)
    expect(container.querySelectorAll('strong').length).toBeGreaterThan(100)
    // An open code fence shows its code at once, unhighlighted, then highlighted when the reply is done.
    const code = 'export function f(a: string): number {\n  return a.length\n'.repeat(60)
    const streaming = `Intro **bold**\n\nHere it is:\n\`\`\`ts\n${code}`
    rerender(
      <StoreContext.Provider value={store}>
        <Markdown text={streaming} streaming />
      </StoreContext.Provider>,
    )
    const pre = container.querySelector('pre code.language-ts')!
    expect(pre.textContent).toBe(code)
    expect(pre.querySelector('.hljs-keyword')).toBeNull()
    expect(container.textContent).toContain('Here it is:')
    rerender(
      <StoreContext.Provider value={store}>
        <Markdown text={`${streaming}\n\`\`\``} />
      </StoreContext.Provider>,
    )
    expect(container.querySelector('pre code.hljs .hljs-keyword')?.textContent).toBe('export')
  })

  it('renders no raw HTML and no remote image, opens links outside, and turns D-n into a live chip', () => {
    const store = storeWith()
    const { container } = mount(
      store,
      <Markdown
        text={
          'Hello <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n![logo](https://evil.example/p.png) [docs](https://example.com) [local](/etc/passwd) see D-1 and `D-1`\n\n```ts\nconst a = 1\n```'
        }
      />,
    )
    expect(container.querySelector('script')).toBeNull()
    expect(container.querySelector('img')).toBeNull()
    expect(container.querySelector('[onerror]')).toBeNull()
    expect(container.querySelector('.md-image-blocked')?.textContent).toContain('logo')
    const link = container.querySelector('a[href="https://example.com"]')!
    expect(link.getAttribute('target')).toBe('_blank')
    expect(link.getAttribute('rel')).toContain('noopener')
    expect(container.querySelector('a[href="/etc/passwd"]')).toBeNull()
    expect(container.querySelector('[data-ref="D-1"]')?.textContent).toBe('D-1v1')
    // Punctuation after a chip is kept on the chip's line.
    const { container: c2 } = mount(store, <Markdown text={'Checked against D-1, then T-9. Fine.'} />)
    expect([...c2.querySelectorAll('.ref-nowrap')].map((e) => e.textContent)).toEqual(['D-1v1,', 'T-9.'])
    expect(c2.textContent).toBe('Checked against D-1v1, then T-9. Fine.')
    expect(container.querySelectorAll('[data-ref]')).toHaveLength(1)
    expect(container.querySelector('pre code.hljs .hljs-keyword')?.textContent).toBe('const')
  })
})

describe('questions to the human', () => {
  it('show as a question from the member, not as a folded tool call', () => {
    const store = storeWith()
    store.setState({
      members: {
        [`${WS}-m1`]: {
          id: `${WS}-m1`,
          workspaceId: WS,
          name: 'Ada',
          role: 'lead',
          authority: 'decider',
          instructions: '',
          provider: null,
          approval: 'ask',
          maxSteps: 30,
          planningInterval: 0,
          network: false,
          mcpOff: [],
          runner: null,
          createdAt: '',
          updatedAt: '',
        },
      },
    })
    const call = {
      id: 'call_1',
      name: 'ask_human',
      argumentsText: JSON.stringify({ question: 'Should **D-1** cover webhooks?' }),
    }
    const result = {
      id: `${WS}-s3`,
      seq: 3,
      memberId: `${WS}-m1`,
      turnId: `${WS}-s1`,
      kind: 'tool' as const,
      status: 'done' as const,
      text: 'Question for the human: …',
      toolCalls: [],
      tool: {
        callId: `${WS}-s3`,
        toolCallId: 'call_1',
        name: 'ask_human',
        argumentsText: call.argumentsText,
        isError: false,
      },
      fromMemberId: null,
      taskId: null,
      usage: null,
      changes: null,
      refs: [],
      startedAt: '',
      endedAt: '',
    }
    // Open: the member's session says this is the question still waiting for an answer.
    const info = {
      memberId: `${WS}-m1`,
      state: 'idle' as const,
      error: null,
      errorCode: null,
      queued: 0,
      pendingApprovals: [],
      pendingNotices: 0,
      question: { stepId: result.id, text: 'Should **D-1** cover webhooks?' },
    }
    store.getState().applySessionInfo(info)
    const { container } = mount(store, <ToolCall memberId={`${WS}-m1`} call={call} result={result} awaiting={false} />)
    const box = screen.getByTestId('question')
    expect(box.textContent).toContain('Ada asks you')
    expect(box.querySelector('strong')?.textContent).toBe('D-1v1')
    expect(container.querySelector('[data-testid=tool-call]')).toBeNull()
    fireEvent.click(screen.getByText('Answer in the message box'))
    expect(store.getState().selectedMemberId).toBe(`${WS}-m1`)
    // Answered (the human wrote since): kept as history, without the call to answer.
    act(() => store.getState().applySessionInfo({ ...info, question: null }))
    expect(box.textContent).toContain('Ada asked you')
    expect(box.getAttribute('data-answered')).toBe('true')
    expect(screen.queryByText('Answer in the message box')).toBeNull()
  })
})

describe('modals', () => {
  it('close one at a time with Escape, innermost first', () => {
    function Nested() {
      const [outer, setOuter] = useState(true)
      const [inner, setInner] = useState(true)
      return outer ? (
        <Modal title="Open repository" onClose={() => setOuter(false)}>
          <input aria-label="path" />
          {inner && (
            <Modal title="Choose a folder" onClose={() => setInner(false)}>
              <input aria-label="folder" />
            </Modal>
          )}
        </Modal>
      ) : null
    }
    render(<Nested />)
    expect(screen.getAllByRole('dialog')).toHaveLength(2)
    fireEvent.keyDown(window, { key: 'Escape' })
    expect(screen.getAllByRole('dialog').map((d) => d.getAttribute('aria-label'))).toEqual(['Open repository'])
    fireEvent.keyDown(window, { key: 'Escape' })
    expect(screen.queryAllByRole('dialog')).toHaveLength(0)
  })

  it('give focus back to what opened them', () => {
    function Opener() {
      const [open, setOpen] = useState(false)
      return (
        <>
          <button onClick={() => setOpen(true)}>Open settings</button>
          {open && (
            <Modal title="Settings" onClose={() => setOpen(false)}>
              <input aria-label="name" />
            </Modal>
          )}
        </>
      )
    }
    render(<Opener />)
    const button = screen.getByText('Open settings')
    button.focus()
    fireEvent.click(button)
    expect(document.activeElement).toBe(screen.getByLabelText('name'))
    fireEvent.keyDown(window, { key: 'Escape' })
    expect(document.activeElement).toBe(button)
  })

  it('keep Tab inside the dialog', () => {
    render(
      <>
        <button>behind</button>
        <Modal title="Settings" onClose={() => {}}>
          <input aria-label="name" />
        </Modal>
      </>,
    )
    const name = screen.getByLabelText('name')
    const close = screen.getByLabelText('Close')
    // The dialog's focusables in order: its close button, then the field.
    expect(document.activeElement).toBe(name)
    fireEvent.keyDown(window, { key: 'Tab' })
    expect(document.activeElement).toBe(close)
    fireEvent.keyDown(window, { key: 'Tab', shiftKey: true })
    expect(document.activeElement).toBe(name)
    screen.getByText('behind').focus()
    fireEvent.keyDown(window, { key: 'Tab' })
    expect(document.activeElement).toBe(close)
  })
})

describe('decision cards', () => {
  it('follow the decision: another chat editing it updates every card at once', () => {
    const store = storeWith()
    mount(
      store,
      <>
        <DecisionCard decisionKey="D-1" />
        <DecisionCard decisionKey="D-1" />
      </>,
    )
    expect(screen.getAllByTestId('decision-card').map((c) => c.getAttribute('data-version'))).toEqual(['1', '1'])
    act(() => store.getState().applyDecision(decision(2, 'GraphQL at /graphql')))
    const cards = screen.getAllByTestId('decision-card')
    expect(cards.map((c) => c.getAttribute('data-version'))).toEqual(['2', '2'])
    expect(cards[1]!.textContent).toContain('GraphQL at /graphql')
  })

  it('edits in place: impact preview first, then one compare-and-set update', async () => {
    const sent: unknown[] = []
    const store = storeWith({
      'decisions.previewImpact': () => ({
        decisionId: `${WS}-d1`,
        normative: true,
        counts: { ...noCounts, tasks: 1, needsReverification: 1 },
        tasks: [
          {
            taskId: 't',
            key: 'T-1',
            status: 'delivered',
            flag: 'needs_reverification',
            assigneeId: null,
            acceptanceRevoked: false,
          },
        ],
        reports: [],
        notifiedMemberIds: [],
      }),
      'decisions.update': (p) => {
        sent.push(p)
        return {
          decision: decision(2, p.statement),
          impact: {
            decisionId: `${WS}-d1`,
            normative: true,
            counts: noCounts,
            tasks: [],
            reports: [],
            notifiedMemberIds: [],
          },
        }
      },
    })
    store.setState({
      decisions: { [`${WS}-d1`]: { ...decision(1, 'REST with JSON'), rationale: 'Every client speaks plain HTTP.' } },
    })
    mount(store, <DecisionCard decisionKey="D-1" sourceMessageId={`${WS}-s4`} />)
    fireEvent.click(screen.getByText('Edit'))
    fireEvent.change(screen.getByLabelText('Statement'), { target: { value: 'GraphQL' } })
    await waitFor(() => expect(screen.getByTestId('impact-preview').textContent).toContain('Flags T-1 delivered'))
    // A new statement asks whether the rationale still holds: Confirm waits for the answer.
    expect(screen.getByText('Confirm → v2').closest('button')!.disabled).toBe(true)
    fireEvent.click(screen.getByLabelText(/still holds as written/))
    fireEvent.click(screen.getByText('Confirm → v2'))
    await waitFor(() => expect(screen.getByTestId('decision-card').getAttribute('data-version')).toBe('2'))
    expect(sent).toEqual([
      { decisionId: `${WS}-d1`, expectedVersion: 1, statement: 'GraphQL', sourceMessageId: `${WS}-s4` },
    ])
  })
})

describe('decision editor without a rationale', () => {
  it('does not ask whether an absent rationale still holds', async () => {
    const store = storeWith({
      'decisions.previewImpact': () => ({
        decisionId: `${WS}-d1`,
        normative: true,
        counts: noCounts,
        tasks: [],
        reports: [],
        notifiedMemberIds: [],
      }),
    })
    mount(store, <DecisionCard decisionKey="D-1" />)
    fireEvent.click(screen.getByText('Edit'))
    fireEvent.change(screen.getByLabelText('Statement'), { target: { value: 'GraphQL' } })
    await waitFor(() => expect(screen.getByText('Confirm → v2').closest('button')!.disabled).toBe(false))
    expect(screen.queryByLabelText(/still holds as written/)).toBeNull()
  })
})

describe('task board', () => {
  // The board reads one paged list per column (tasks.page), filtered by the server: here, by status.
  const pageOf =
    (...tasks: Task[]) =>
    (p: { status?: Task['status'][] }) => {
      const items = tasks.filter((t) => !p.status || p.status.includes(t.status))
      return { items, nextCursor: null, total: items.length }
    }

  it('shows flags and suspect links, and the exact reasons when acceptance is refused', async () => {
    const stale = { code: 'evidence_stale' as const, reportId: 'r1', message: 'R-1 is based on D-1 v1; D-1 is at v2' }
    const store = storeWith({
      // The card's reasons are the task's readiness (the core's accept check, run dry).
      'tasks.page': pageOf({ ...delivered, readiness: { ready: false, reasons: [stale], deliverOn: null } }),
      'tasks.accept': () => {
        throw Object.assign(new Error('T-1 cannot be accepted'), {
          code: 'evidence_stale',
          details: {
            reasons: [{ code: 'evidence_stale', reportId: 'r1', message: 'R-1 is based on D-1 v1; D-1 is at v2' }],
          },
        })
      },
    })
    mount(store, <TaskBoard />)
    const card = await screen.findByTestId('task-card')
    expect(card.textContent).toContain('needs re-verification')
    expect(card.textContent).toContain('D-1 suspect v1→v2')
    expect(screen.getByTestId('refusal').textContent).toContain('R-1 is based on D-1 v1; D-1 is at v2')
    fireEvent.click(screen.getByTestId('accept-task'))
    await waitFor(() =>
      expect(screen.getByTestId('refusal').textContent).toContain('R-1 is based on D-1 v1; D-1 is at v2'),
    )
  })

  it('creates a task with its criteria, the decisions it depends on and the reports acceptance needs', async () => {
    const sent: unknown[] = []
    const store = storeWith({
      'tasks.page': pageOf(),
      'tasks.create': (p) => (
        sent.push(p),
        { ...delivered, id: `${WS}-t2`, key: 'T-2', title: p.title, status: 'todo', flag: null, links: [] }
      ),
    })
    mount(store, <TaskBoard />)
    fireEvent.click(screen.getByText('New task'))
    fireEvent.change(screen.getByLabelText('Task title'), { target: { value: 'Webhooks' } })
    fireEvent.change(screen.getByLabelText('Acceptance criteria'), { target: { value: 'Signed payloads' } })
    fireEvent.click(screen.getByRole('button', { name: 'D-1' }))
    fireEvent.click(screen.getByRole('button', { name: 'review' }))
    fireEvent.click(screen.getByRole('button', { name: 'implementation' }))
    fireEvent.click(screen.getByText('Create task'))
    await waitFor(() => expect(sent).toHaveLength(1))
    expect(sent[0]).toEqual({
      workspaceId: WS,
      title: 'Webhooks',
      acceptanceCriteria: 'Signed payloads',
      decisionIds: [`${WS}-d1`],
      requiredReports: ['test', 'implementation'],
      planFirst: false,
    })
    await waitFor(() => expect(store.getState().tasks[`${WS}-t2`]?.title).toBe('Webhooks'))
  })
})
