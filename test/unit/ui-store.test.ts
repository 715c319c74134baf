import { describe, expect, it, vi } from 'vitest'
import type { EventEnvelope, MethodName } from '../../shared/contract'
import type { Decision, Impact, Member, SessionInfo, Step, Task } from '../../shared/schemas'
import type { ClientApi, ConnectionState } from '../../renderer/src/api/bridge-client'
import { backoffDelay, createBridgeClient } from '../../renderer/src/api/bridge-client'
import { takeToken } from '../../renderer/src/api/client'
import { refusalReasons, type ClientError } from '../../renderer/src/api/errors'
import { describeImpact } from '../../renderer/src/lib/impact'
import { matchShortcut } from '../../renderer/src/lib/shortcuts'
import { createAppStore, keepPrefs, loadPrefs } from '../../renderer/src/stores/app-store'
import { connectEvents, notificationFor, type Scheduler } from '../../renderer/src/stores/events'

const WS = 'w00000001'
const member = (n: number, name: string): Member => ({
  id: `${WS}-m${n}`,
  workspaceId: WS,
  name,
  role: 'implementer',
  authority: 'proposer',
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
})
const decision = (version: number, statement: string): Decision => ({
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'API',
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
const task = (version: number, flag: Task['flag']): Task => ({
  id: `${WS}-t1`,
  workspaceId: WS,
  key: 'T-1',
  title: 'Build',
  spec: '',
  acceptanceCriteria: '',
  status: 'in_progress',
  assigneeId: `${WS}-m1`,
  flag,
  flagged: flag !== null,
  artifact: null,
  links: [],
  blockedBy: [],
  requiredReports: ['test'],
  readiness: { ready: false, reasons: [], deliverOn: null },
  branch: null,
  head: null,
  merged: null,
  version,
  createdAt: '',
  updatedAt: '',
})
const step = (seq: number, extra: Partial<Step> = {}): Step => ({
  id: `${WS}-s${seq}`,
  seq,
  memberId: `${WS}-m1`,
  turnId: `${WS}-s1`,
  kind: 'model',
  status: 'streaming',
  text: '',
  toolCalls: [],
  tool: null,
  fromMemberId: null,
  taskId: null,
  usage: null,
  changes: null,
  refs: [],
  startedAt: '',
  endedAt: null,
  ...extra,
})
const info = (state: SessionInfo['state'], extra: Partial<SessionInfo> = {}): SessionInfo => ({
  memberId: `${WS}-m1`,
  state,
  error: null,
  errorCode: null,
  queued: 0,
  pendingApprovals: [],
  pendingNotices: 0,
  question: null,
  ...extra,
})

/** A ConcordApi double: answers from a table, lets the test push events. */
function fakeApi(answers: Partial<Record<MethodName, (p: any) => unknown>>) {
  const listeners = new Set<(e: EventEnvelope) => void>()
  const calls: [string, unknown][] = []
  const api: ClientApi = {
    call: (async (method: MethodName, params: unknown) => {
      calls.push([method, params])
      const answer = answers[method]
      if (!answer) throw Object.assign(new Error(`no answer for ${method}`), { code: 'internal' })
      return answer(params)
    }) as ClientApi['call'],
    onEvent: (l) => (listeners.add(l), () => listeners.delete(l)),
    onConnection: (l: (s: ConnectionState) => void) => (l('open'), () => {}),
    close: () => {},
  }
  const emit = (event: string, payload: unknown) => listeners.forEach((l) => l({ event, payload } as EventEnvelope))
  return { api, emit, calls }
}

function manualFrames(): Scheduler & { run(): void; pending: number } {
  let queue: (() => void)[] = []
  return {
    request: (cb) => (queue.push(cb), queue.length),
    cancel: () => {},
    run() {
      const q = queue
      queue = []
      q.forEach((cb) => cb())
    },
    get pending() {
      return queue.length
    },
  }
}

async function loadedStore(extra: Partial<Record<MethodName, (p: any) => unknown>> = {}) {
  let tasks = [task(1, null)]
  const fake = fakeApi({
    'workspaces.list': () => [{ id: WS, name: 'repo', repoPath: '/r', createdAt: '' }],
    'members.list': () => [member(1, 'Impl'), member(2, 'Tess')],
    'decisions.list': () => [decision(1, 'REST')],
    'proposals.list': () => [],
    'tasks.page': () => ({ items: tasks, nextCursor: null, total: tasks.length }),
    'tasks.getMany': (p: { ids: string[] }) => tasks.filter((t) => p.ids.includes(t.id)),
    'reports.page': () => ({ items: [], nextCursor: null, total: 0, staleTotal: 0 }),
    'metrics.get': () => null,
    'sessions.list': () => [info('idle')],
    'sessions.get': () => ({
      ...info('idle'),
      steps: [step(1, { kind: 'user', status: 'done', text: 'hi', endedAt: 'x' })],
      hasMore: true,
    }),
    ...extra,
  })
  const store = createAppStore(fake.api)
  await store.getState().loadWorkspaces()
  await store.getState().selectWorkspace(WS)
  return { store, ...fake, setTasks: (t: Task[]) => (tasks = t) }
}

function memoryStorage(): Storage & { writes: number } {
  const data = new Map<string, string>()
  return {
    writes: 0,
    get length() {
      return data.size
    },
    clear: () => data.clear(),
    getItem: (k) => data.get(k) ?? null,
    key: (i) => [...data.keys()][i] ?? null,
    removeItem: (k) => void data.delete(k),
    setItem(k, v) {
      this.writes++
      data.set(k, v)
    },
  }
}

describe('UI preferences', () => {
  it('are written when a preference changes, never for streamed text', async () => {
    const { store, emit } = await loadedStore()
    const storage = memoryStorage()
    keepPrefs(store, storage)
    const frames = manualFrames()
    connectEvents(store, frames, () => {})
    await store.getState().loadSession(`${WS}-m1`)
    emit('session.step', { workspaceId: WS, memberId: `${WS}-m1`, step: step(2) })
    for (let i = 0; i < 50; i++) {
      emit('session.delta', { workspaceId: WS, memberId: `${WS}-m1`, stepId: `${WS}-s2`, text: 'word ' })
      frames.run()
    }
    expect(storage.writes).toBe(0)
    store.getState().setTheme('dark')
    store.getState().setRightTab('tasks')
    store.getState().setNotifyDesktop(true)
    expect(storage.writes).toBe(3)
    expect(loadPrefs(storage)).toEqual({
      theme: 'dark',
      rightTab: 'tasks',
      panelOpen: true,
      lastWorkspaceId: WS,
      notifyDesktop: true,
    })
  })

  it('are read back only when well formed', () => {
    const storage = memoryStorage()
    expect(loadPrefs(storage)).toEqual({})
    for (const bad of ['{not json', 'null', '[]', '{"state":{"theme":"dark"},"version":2}']) {
      storage.setItem('concord.ui', bad)
      expect(loadPrefs(storage), bad).toEqual({})
    }
    storage.setItem(
      'concord.ui',
      JSON.stringify({
        state: { theme: 'neon', rightTab: 'inbox', panelOpen: 'yes', lastWorkspaceId: 7, notifyDesktop: 'on' },
        version: 1,
      }),
    )
    expect(loadPrefs(storage)).toEqual({ rightTab: 'inbox' })
  })
})

describe('renderer store', () => {
  it('loads a workspace and selects its first member', async () => {
    const { store } = await loadedStore()
    const s = store.getState()
    expect(s.memberOrder).toEqual([`${WS}-m1`, `${WS}-m2`])
    expect(s.selectedMemberId).toBe(`${WS}-m1`)
    expect(Object.values(s.decisions).map((d) => d.key)).toEqual(['D-1'])
  })

  it('buffers streamed text per session and applies it once per animation frame', async () => {
    const { store, emit } = await loadedStore()
    const frames = manualFrames()
    const wiring = connectEvents(store, frames, () => {})
    await store.getState().loadSession(`${WS}-m1`)
    emit('session.step', { workspaceId: WS, memberId: `${WS}-m1`, step: step(2) })
    const renders = vi.fn()
    const off = store.subscribe(renders)
    for (const piece of ['Use ', 'REST ', 'with ', 'JSON'])
      emit('session.delta', { workspaceId: WS, memberId: `${WS}-m1`, stepId: `${WS}-s2`, text: piece })
    emit('session.delta', { workspaceId: WS, memberId: `${WS}-m2`, stepId: `${WS}-s7`, text: 'other session' })
    expect(renders).not.toHaveBeenCalled()
    expect(frames.pending).toBe(1)
    frames.run()
    expect(renders).toHaveBeenCalledTimes(1)
    const s = store.getState()
    expect(s.sessions[`${WS}-m1`]!.steps.at(-1)!.text).toBe('Use REST with JSON')
    // Keyed by session: the other member's text never lands in this one.
    expect(s.sessions[`${WS}-m2`]!.steps.map((x) => x.text)).toEqual(['other session'])
    off()
    wiring.stop()
  })

  it('drops buffered deltas that the step event already carries', async () => {
    const { store, emit } = await loadedStore()
    const frames = manualFrames()
    connectEvents(store, frames, () => {})
    await store.getState().loadSession(`${WS}-m1`)
    emit('session.step', { workspaceId: WS, memberId: `${WS}-m1`, step: step(2) })
    emit('session.delta', { workspaceId: WS, memberId: `${WS}-m1`, stepId: `${WS}-s2`, text: 'Hello' })
    emit('session.step', {
      workspaceId: WS,
      memberId: `${WS}-m1`,
      step: step(2, { status: 'done', text: 'Hello', endedAt: 'x' }),
    })
    frames.run()
    expect(store.getState().sessions[`${WS}-m1`]!.steps.at(-1)!.text).toBe('Hello')
  })

  it('ignores events of another workspace and older versions of a decision', async () => {
    const { store, emit } = await loadedStore()
    connectEvents(store, manualFrames(), () => {})
    emit('decision.created', {
      workspaceId: 'w99999999',
      decision: { ...decision(1, 'x'), id: 'w99999999-d1', workspaceId: 'w99999999' },
    })
    expect(Object.keys(store.getState().decisions)).toEqual([`${WS}-d1`])
    store.getState().applyDecision(decision(3, 'v3'))
    store.getState().applyDecision(decision(2, 'late v2'))
    expect(store.getState().decisions[`${WS}-d1`]!.statement).toBe('v3')
  })

  it('reads the shown task list again after a decision edit (the server flags), never a whole-list call', async () => {
    vi.useFakeTimers()
    try {
      const { store, emit, setTasks, calls } = await loadedStore()
      connectEvents(store, manualFrames(), () => {})
      store.getState().showList('tasks', {})
      await vi.advanceTimersByTimeAsync(0)
      setTasks([task(2, 'needs_adjustment')])
      const impact = {
        decisionId: `${WS}-d1`,
        version: 2,
        normative: true,
        truncated: false,
        counts: {
          tasks: 1,
          needsAdjustment: 1,
          needsReverification: 0,
          acceptanceRevoked: 0,
          reports: 0,
          staleClaims: 0,
          restoredClaims: 0,
        },
        tasks: [
          {
            taskId: `${WS}-t1`,
            key: 'T-1',
            status: 'in_progress',
            flag: 'needs_adjustment',
            assigneeId: `${WS}-m1`,
            acceptanceRevoked: false,
          },
        ],
        reports: [],
        notifiedMemberIds: [`${WS}-m1`],
      } as Impact
      const before = calls.length
      emit('decision.changed', {
        workspaceId: WS,
        decision: decision(2, 'GraphQL'),
        impact,
        editorial: false,
        reason: '',
        actorId: null,
      })
      expect(store.getState().decisions[`${WS}-d1`]!.version).toBe(2)
      await vi.advanceTimersByTimeAsync(500)
      // The row is the server's, as the list's read brought it.
      expect(store.getState().tasks[`${WS}-t1`]).toMatchObject({ version: 2, flag: 'needs_adjustment' })
      const after = calls.slice(before).map(([m]) => m)
      expect(after).toContain('tasks.page')
      expect(after.filter((m) => m === 'tasks.list' || m === 'reports.list')).toEqual([])
      expect(calls.filter(([m]) => m === 'sessions.list').length).toBeGreaterThanOrEqual(2)
    } finally {
      vi.useRealTimers()
    }
  })

  it('notifies when a member needs approval or finishes, once the user turned notifications on', async () => {
    const { store, emit } = await loadedStore()
    const notify = vi.fn()
    connectEvents(store, manualFrames(), notify)
    store.getState().selectMember(`${WS}-m2`)
    const turn = () => {
      emit('session.state', { workspaceId: WS, session: info('running') })
      emit('session.state', {
        workspaceId: WS,
        session: info('waiting_approval', {
          pendingApprovals: [{ callId: 'c', name: 'run_command', argumentsText: '{}' }],
        }),
      })
      emit('session.state', { workspaceId: WS, session: info('running') })
      emit('session.state', { workspaceId: WS, session: info('idle') })
    }
    // Off by default: opt-in.
    expect(store.getState().notifyDesktop).toBe(false)
    turn()
    expect(notify).not.toHaveBeenCalled()
    store.getState().setNotifyDesktop(true)
    turn()
    expect(notify.mock.calls.map((c) => c[0])).toEqual(['Impl needs your approval', 'Impl finished'])
    expect(notificationFor(info('idle'), info('idle'), 'X')).toBeNull()
    expect(notificationFor(info('running'), info('idle', { queued: 1 }), 'X')).toBeNull()
  })

  it('tells you a member asks a question (instead of "finished"), with the question', async () => {
    const { store, emit } = await loadedStore()
    const notify = vi.fn()
    connectEvents(store, manualFrames(), notify)
    store.getState().setNotifyDesktop(true)
    store.getState().selectMember(`${WS}-m2`)
    const ask = (q: string, seq: number) =>
      step(seq, {
        kind: 'tool',
        status: 'done',
        text: `Question for the human: ${q}`,
        endedAt: 'x',
        tool: {
          callId: `${WS}-s${seq}`,
          toolCallId: 'call_1',
          name: 'ask_human',
          argumentsText: JSON.stringify({ question: q }),
          isError: false,
        },
      })
    emit('session.state', { workspaceId: WS, session: info('running') })
    emit('session.step', { workspaceId: WS, memberId: `${WS}-m1`, step: ask('REST or GraphQL for the public API?', 3) })
    // The session state carries the open question (the core finds it in the member's steps).
    emit('session.state', {
      workspaceId: WS,
      session: info('idle', { question: { stepId: `${WS}-s3`, text: 'REST or GraphQL for the public API?' } }),
    })
    expect(notify.mock.calls).toEqual([['Impl asks you', 'REST or GraphQL for the public API?']])
    // Answered, the next turn that simply ends is "finished" again; a stray malformed call is no question.
    emit('session.state', { workspaceId: WS, session: info('running') })
    emit('session.step', {
      workspaceId: WS,
      memberId: `${WS}-m1`,
      step: {
        ...ask('x', 4),
        tool: {
          callId: `${WS}-s4`,
          toolCallId: 'c',
          name: 'ask_human',
          argumentsText: '{"question": 7',
          isError: false,
        },
      },
    })
    emit('session.state', { workspaceId: WS, session: info('idle') })
    expect(notify.mock.calls.map((c) => c[0])).toEqual(['Impl asks you', 'Impl finished'])
  })

  it('counts replies that finish while a member is off screen', async () => {
    const { store, emit } = await loadedStore()
    connectEvents(store, manualFrames(), () => {})
    emit('session.step', {
      workspaceId: WS,
      memberId: `${WS}-m2`,
      step: step(5, { memberId: `${WS}-m2`, status: 'done', text: 'done', endedAt: 'x' }),
    })
    expect(store.getState().sessions[`${WS}-m2`]!.unread).toBe(1)
    store.getState().selectMember(`${WS}-m2`)
    expect(store.getState().sessions[`${WS}-m2`]!.unread).toBe(0)
  })

  it('pages older steps in before the first one held', async () => {
    const { store, calls } = await loadedStore({
      'sessions.get': (p: { before?: number }) =>
        p.before
          ? {
              ...info('idle'),
              steps: [step(1, { id: `${WS}-s0`, seq: 0, status: 'done', endedAt: 'x' })],
              hasMore: false,
            }
          : { ...info('idle'), steps: [step(5, { status: 'done', endedAt: 'x' })], hasMore: true },
    })
    await store.getState().loadSession(`${WS}-m1`)
    await store.getState().loadOlder(`${WS}-m1`)
    const held = store.getState().sessions[`${WS}-m1`]
    expect(held!.steps.map((x) => x.seq)).toEqual([0, 5])
    expect(held!.hasMore).toBe(false)
    expect(calls.filter(([m]) => m === 'sessions.get').at(-1)![1]).toMatchObject({ before: 5 })
  })
})

describe('pure helpers', () => {
  it('says what an edit will flag, in the product words', () => {
    const impact = {
      decisionId: 'd',
      version: 2,
      normative: true,
      truncated: false,
      counts: {
        tasks: 2,
        needsAdjustment: 1,
        needsReverification: 1,
        acceptanceRevoked: 0,
        reports: 1,
        staleClaims: 2,
        restoredClaims: 0,
      },
      tasks: [
        {
          taskId: 't2',
          key: 'T-2',
          status: 'in_progress',
          flag: 'needs_adjustment',
          assigneeId: `${WS}-m1`,
          acceptanceRevoked: false,
        },
        {
          taskId: 't3',
          key: 'T-3',
          status: 'delivered',
          flag: 'needs_reverification',
          assigneeId: null,
          acceptanceRevoked: false,
        },
      ],
      reports: [
        {
          reportId: 'r',
          key: 'R-4',
          taskId: 't3',
          authorId: null,
          staleClaimIds: ['c1', 'c2'],
          restoredClaimIds: [],
          validity: 'stale',
        },
      ],
      notifiedMemberIds: [`${WS}-m1`],
    } as Impact
    expect(describeImpact(impact, { [`${WS}-m1`]: member(1, 'Implementer') })).toBe(
      'Flags T-2 in progress by Implementer, T-3 delivered; stales 2 claims in R-4. Notifies Implementer.',
    )
    expect(describeImpact({ ...impact, normative: false }, {})).toMatch(/^Editorial/)
  })

  it('matches keyboard shortcuts, leaving plain keys to text fields', () => {
    const k = (
      key: string,
      mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean; inField: boolean }> = {},
    ) => matchShortcut({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, inField: false, ...mods })
    expect(k('2', { ctrlKey: true })).toEqual({ type: 'member', index: 1 })
    expect(k('3', { metaKey: true })).toEqual({ type: 'member', index: 2 })
    expect(k('ArrowDown', { altKey: true })).toEqual({ type: 'nextMember' })
    // Ctrl/⌘ K opens the palette, from a text field too; Ctrl/⌘ Shift F (the session search's) opens it as well.
    expect(k('k', { ctrlKey: true, inField: true })).toEqual({ type: 'palette' })
    expect(k('K', { metaKey: true })).toEqual({ type: 'palette' })
    expect(k('F', { ctrlKey: true, shiftKey: true, inField: true })).toEqual({ type: 'palette' })
    expect(k('/')).toEqual({ type: 'focusComposer' })
    expect(k('/', { inField: true })).toBeNull()
    expect(k('t', { altKey: true })).toEqual({ type: 'toggleTeam' })
    expect(k('a')).toBeNull()
  })

  it('reads the exact refusal reasons of an acceptance', () => {
    const reasons = [{ code: 'evidence_stale', reportId: 'r1', message: 'R-1 is based on D-1 v1; D-1 is at v2' }]
    expect(refusalReasons({ code: 'evidence_stale', message: 'no', details: { reasons } })).toEqual(reasons)
    expect(refusalReasons({ code: 'internal', message: 'no' })).toEqual([])
  })
})

describe('browser client for the bridge', () => {
  class FakeSocket {
    static all: FakeSocket[] = []
    onopen: (() => void) | null = null
    onmessage: ((m: { data: string }) => void) | null = null
    onclose: (() => void) | null = null
    onerror: (() => void) | null = null
    constructor(readonly url: string) {
      FakeSocket.all.push(this)
    }
    close() {
      this.onclose?.()
    }
  }

  it('posts each call with the bearer token and surfaces errors with code and details', async () => {
    const fetch = vi.fn(async (url: string, init: RequestInit) => {
      const body = JSON.parse(init.body as string)
      if (url.endsWith('/api/tasks.accept')) {
        return new Response(
          JSON.stringify({
            ok: false,
            error: {
              code: 'evidence_stale',
              message: 'T-1 cannot be accepted',
              details: { reasons: [{ code: 'evidence_stale', reportId: 'r', message: 'R-1 is based on D-1 v1' }] },
            },
          }),
          { status: 409 },
        )
      }
      return new Response(JSON.stringify({ ok: true, value: { echoed: body } }))
    })
    const client = createBridgeClient({
      origin: 'http://127.0.0.1:5183',
      token: 'tok',
      fetch: fetch as never,
      WebSocket: FakeSocket as never,
    })
    expect(await client.call('workspaces.list', {})).toEqual({ echoed: {} })
    expect(fetch.mock.calls[0]![0]).toBe('http://127.0.0.1:5183/api/workspaces.list')
    expect((fetch.mock.calls[0]![1].headers as Record<string, string>).authorization).toBe('Bearer tok')
    const err = (await client.call('tasks.accept', { taskId: 'w00000001-t1' }).catch((e: unknown) => e)) as ClientError
    expect(err).toMatchObject({ code: 'evidence_stale', message: 'T-1 cannot be accepted' })
    expect(refusalReasons(err)[0]!.message).toBe('R-1 is based on D-1 v1')
    const down = createBridgeClient({
      origin: 'http://127.0.0.1:1',
      token: 't',
      fetch: () => Promise.reject(new TypeError('failed')),
      WebSocket: FakeSocket as never,
    })
    await expect(down.call('workspaces.list', {})).rejects.toMatchObject({ code: 'network' })
  })

  it('reconnects the event socket with backoff and reports the connection', async () => {
    vi.useFakeTimers()
    try {
      FakeSocket.all = []
      const client = createBridgeClient({
        origin: 'http://127.0.0.1:5183',
        token: 'a b',
        WebSocket: FakeSocket as never,
        minDelay: 100,
        maxDelay: 1000,
      })
      const states: string[] = []
      client.onConnection((s) => states.push(s))
      const events: unknown[] = []
      client.onEvent((e) => events.push(e))
      expect(FakeSocket.all[0]!.url).toBe('ws://127.0.0.1:5183/events?token=a+b')
      FakeSocket.all[0]!.onopen!()
      FakeSocket.all[0]!.onmessage!({ data: JSON.stringify({ event: 'task.changed', payload: { workspaceId: WS } }) })
      expect(events).toHaveLength(1)
      FakeSocket.all[0]!.close()
      expect(states).toEqual(['closed', 'connecting', 'open', 'connecting'])
      await vi.advanceTimersByTimeAsync(200)
      expect(FakeSocket.all).toHaveLength(2)
      client.close()
    } finally {
      vi.useRealTimers()
    }
    expect(backoffDelay(0, 250, 8000, () => 0.5)).toBe(250)
    expect(backoffDelay(10, 250, 8000, () => 0.5)).toBe(8000)
  })

  it('a socket that never opens asks whether the token is refused: a 401 ends the retries (unauthorized), no answer retries', async () => {
    vi.useFakeTimers()
    try {
      FakeSocket.all = []
      let answer: 'down' | 401 | 200 = 'down'
      const asked: string[] = []
      const fetch = vi.fn(async (url: string) => {
        asked.push(url)
        if (answer === 'down') throw new TypeError('Failed to fetch')
        return new Response(JSON.stringify({ ok: answer === 200, value: [] }), { status: answer })
      })
      const client = createBridgeClient({
        origin: 'http://127.0.0.1:5183',
        token: 'old-token-of-the-tab',
        fetch: fetch as never,
        WebSocket: FakeSocket as never,
        minDelay: 100,
        maxDelay: 100,
      })
      const states: string[] = []
      client.onConnection((s) => states.push(s))
      client.onEvent(() => {})
      // The server is down: the question gets no answer, and the socket is tried again.
      FakeSocket.all[0]!.close()
      await vi.advanceTimersByTimeAsync(300)
      expect(asked).toEqual(['http://127.0.0.1:5183/api/workspaces.list'])
      expect(FakeSocket.all).toHaveLength(2)
      // It is back with another token: 401, and nothing more is tried.
      answer = 401
      FakeSocket.all[1]!.close()
      await vi.advanceTimersByTimeAsync(1000)
      expect(states.at(-1)).toBe('unauthorized')
      expect(FakeSocket.all).toHaveLength(2)
      client.close()
      expect(states.at(-1)).toBe('unauthorized')
    } finally {
      vi.useRealTimers()
    }
  })

  it('a token question that gets no answer at all is given up, and the socket tried again', async () => {
    vi.useFakeTimers()
    try {
      FakeSocket.all = []
      // A server that takes the connection and never answers: the fetch ends only when its signal aborts.
      const fetch = vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise<Response>((_, reject) =>
            init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
          ),
      )
      const client = createBridgeClient({
        origin: 'http://127.0.0.1:5183',
        token: 't',
        fetch: fetch as never,
        WebSocket: FakeSocket as never,
        minDelay: 100,
        maxDelay: 100,
      })
      client.onEvent(() => {})
      FakeSocket.all[0]!.close()
      await vi.advanceTimersByTimeAsync(1000)
      expect(fetch).toHaveBeenCalledTimes(1)
      expect(FakeSocket.all).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(5000)
      expect(FakeSocket.all).toHaveLength(2)
      client.close()
    } finally {
      vi.useRealTimers()
    }
  })

  it('a call answered 401 ends the retries too', async () => {
    FakeSocket.all = []
    const fetch = vi.fn(
      async () =>
        new Response(JSON.stringify({ ok: false, error: { code: 'unauthorized', message: 'wrong token' } }), {
          status: 401,
        }),
    )
    const client = createBridgeClient({
      origin: 'http://127.0.0.1:5183',
      token: 'old-token-of-the-tab',
      fetch,
      WebSocket: FakeSocket as never,
    })
    const states: string[] = []
    client.onConnection((s) => states.push(s))
    client.onEvent(() => {})
    await expect(client.call('workspaces.list', {})).rejects.toMatchObject({ code: 'unauthorized' })
    expect(states.at(-1)).toBe('unauthorized')
    client.close()
  })

  it('takes the token from the address once and strips it', () => {
    const stored = new Map<string, string>()
    const storage = {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => void stored.set(k, v),
    } as Storage
    const replaced: string[] = []
    const hist = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => void replaced.push(url),
    } as unknown as History
    expect(takeToken({ href: 'http://127.0.0.1:5183/?token=s3cret&x=1#h' } as Location, storage, hist)).toBe('s3cret')
    expect(replaced).toEqual(['/?x=1#h'])
    expect(takeToken({ href: 'http://127.0.0.1:5183/' } as Location, storage, hist)).toBe('s3cret')
  })
})
