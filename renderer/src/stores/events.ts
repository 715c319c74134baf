/**
 * Applies the main process's events to the store. Subscribed once, outside React; everything is keyed
 * by member (session) id. Streamed text is buffered per session and flushed once per animation frame.
 */
import type { EventEnvelope } from '../../../shared/contract'
import type { SessionInfo } from '../../../shared/schemas'
import { useTreeRuns } from './tree-runs'
import type { AppStore } from './types'

export interface Scheduler {
  request(cb: () => void): number
  cancel(handle: number): void
}

export const frameScheduler: Scheduler =
  typeof requestAnimationFrame === 'function'
    ? { request: (cb) => requestAnimationFrame(cb), cancel: (h) => cancelAnimationFrame(h) }
    : { request: (cb) => setTimeout(cb, 16) as unknown as number, cancel: (h) => clearTimeout(h) }

export interface Notifier {
  (title: string, body: string): void
}

/** What a change of session state is worth telling the user about, if anything. */
export function notificationFor(
  prev: SessionInfo | undefined,
  next: SessionInfo,
  name: string,
): { kind: 'approval' | 'question' | 'finished' | 'error'; title: string; body: string } | null {
  // A turn that ends with a question to the human: the question is the news, not "finished".
  if (next.question && next.question.stepId !== prev?.question?.stepId)
    return { kind: 'question', title: `${name} asks you`, body: next.question.text }
  if (next.state === 'waiting_approval' && prev?.state !== 'waiting_approval') {
    const call = next.pendingApprovals[0]
    return {
      kind: 'approval',
      title: `${name} needs your approval`,
      body: call ? `to run ${call.name}` : 'a tool call is waiting',
    }
  }
  if (
    prev &&
    (prev.state === 'running' || prev.state === 'waiting_approval') &&
    next.state === 'idle' &&
    next.queued === 0
  ) {
    return { kind: 'finished', title: `${name} finished`, body: 'The reply is ready.' }
  }
  if (next.state === 'error' && prev?.state !== 'error')
    return { kind: 'error', title: `${name} stopped with an error`, body: next.error ?? '' }
  return null
}

/**
 * Shows a desktop notification: in the desktop app Electron's, from the main process (`system.notify`, over the
 * checked IPC channel); in the browser the page's Notification API, once the user allowed it.
 */
export function desktopNotifier(store: AppStore): Notifier {
  return (title, body) => {
    const s = store.getState()
    if (s.nativeDialogs) {
      s.api.call('system.notify', { title, body }).catch(() => {})
      return
    }
    // Turned on only once the browser granted it (NotifyToggle). Not `Notification.permission`: some Chromium builds
    // (the headless shell) answer "denied" there while granting requestPermission and showing notifications.
    if (typeof Notification === 'undefined') return
    try {
      new Notification(title, { body, silent: false })
    } catch {
      // Some hosts refuse page notifications; the sidebar status still shows it.
    }
  }
}

/**
 * The window has the user's attention (a notification would only repeat the sidebar). Focus, not visibility: a
 * visible window behind another one, or on another screen, is not being looked at.
 */
function windowFocused(): boolean {
  return typeof document !== 'undefined' && document.hasFocus()
}

/** What events ask to refetch besides the lists (which they invalidate: stores/lists-slice.ts), coalesced. */
type Refresh = 'metrics' | 'sessions'
const refreshDelay: Record<Refresh, number> = { metrics: 300, sessions: 100 }

export interface EventWiring {
  stop(): void
  /** Applies buffered deltas now (tests, and before a step replaces its streamed text). */
  flush(): void
}

/** Streamed text per member and step, applied to the store once per frame. */
function deltaBuffer(store: AppStore, scheduler: Scheduler) {
  let deltas = new Map<string, Map<string, string>>()
  let frame: number | null = null
  const flush = () => {
    if (frame !== null) scheduler.cancel(frame)
    frame = null
    if (!deltas.size) return
    const batch = deltas
    deltas = new Map()
    store.getState().applyDeltas(batch)
  }
  return {
    flush,
    add(memberId: string, stepId: string, text: string) {
      let byStep = deltas.get(memberId)
      if (!byStep) {
        byStep = new Map<string, string>()
        deltas.set(memberId, byStep)
      }
      byStep.set(stepId, (byStep.get(stepId) ?? '') + text)
      if (frame === null) frame = scheduler.request(flush)
    },
    /** Drops what is buffered for one step (its step event carries it), or for the whole member. */
    drop(memberId: string, stepId?: string) {
      if (stepId === undefined) deltas.delete(memberId)
      else deltas.get(memberId)?.delete(stepId)
    },
    stop() {
      if (frame !== null) scheduler.cancel(frame)
    },
  }
}
type DeltaBuffer = ReturnType<typeof deltaBuffer>

/** Coalesces refetches that several events in a burst would each ask for. */
function refetcher(store: AppStore) {
  const timers = new Map<Refresh, ReturnType<typeof setTimeout>>()
  const soon = (...which: Refresh[]) => {
    for (const w of which) {
      if (timers.has(w)) continue
      timers.set(
        w,
        setTimeout(() => {
          timers.delete(w)
          const st = store.getState()
          const run = { metrics: st.refreshMetrics, sessions: st.refreshSessionInfos }[w]
          run().catch(() => {})
        }, refreshDelay[w]),
      )
    }
  }
  const stop = () => {
    for (const t of timers.values()) clearTimeout(t)
  }
  return { soon, stop }
}
type Soon = (...which: Refresh[]) => void

/** The events about the workspace's records: its team, decisions, proposals, tasks, reports and notices. */
function applyRecordEvent(store: AppStore, envelope: EventEnvelope, soon: Soon): void {
  const s = store.getState()
  switch (envelope.event) {
    case 'workspace.opened': {
      const { workspace } = envelope.payload
      if (!s.workspaces.some((w) => w.id === workspace.id)) store.setState({ workspaces: [...s.workspaces, workspace] })
      return
    }
    case 'member.changed':
      s.applyMember(envelope.payload.member)
      // A task's readiness names who to ask from the team as it is: the shown tasks are read again.
      void s.invalidateLists(['tasks'])
      return
    case 'decision.created':
      s.applyDecision(envelope.payload.decision)
      soon('metrics')
      return
    case 'decision.changed': {
      const p = envelope.payload
      // Applied once (the editor's answer may have been first): the lists it may affect are read again.
      void s.applyDecisionChange(p.decision, p.impact)
      soon('metrics')
      if (p.impact.notifiedMemberIds.length) soon('sessions')
      return
    }
    case 'proposal.changed':
      s.applyProposal(envelope.payload.proposal)
      soon('metrics')
      return
    case 'task.treeRun':
      useTreeRuns.getState().apply(envelope.payload.run)
      return
    case 'task.changed':
      s.applyTask(envelope.payload.task)
      soon('metrics')
      return
    case 'report.submitted':
      // Its card shows when a report list is read again, which fetches the task it names if none is cached.
      s.applyReport(envelope.payload.report)
      return
    case 'notice.created': {
      const { notice } = envelope.payload
      const held = s.sessions[notice.memberId]
      if (held) s.applySessionInfo({ ...held.info, pendingNotices: held.info.pendingNotices + 1 })
      soon('metrics')
      return
    }
  }
}

/** The events about the members' sessions: their state, steps, resets and streamed text. */
function applySessionEvent(
  store: AppStore,
  envelope: EventEnvelope,
  { soon, deltas, notify }: { soon: Soon; deltas: DeltaBuffer; notify: Notifier },
): void {
  const s = store.getState()
  switch (envelope.event) {
    case 'session.state': {
      const { session } = envelope.payload
      const prev = s.sessions[session.memberId]?.info
      // A turn's end: an agent's reported cost may have come after its last step (money, on the Figures tab).
      if (session.state === 'idle' && prev?.state !== 'idle') soon('metrics')
      s.applySessionInfo(session)
      const name = s.members[session.memberId]?.name
      const note = name ? notificationFor(prev, session, name) : null
      // Opt-in (the user turned notifications on), and only while the window is not focused.
      if (note && s.notifyDesktop && !windowFocused()) notify(note.title, note.body)
      return
    }
    case 'session.step': {
      const { memberId, step } = envelope.payload
      // The step's text already contains every delta sent before it: drop what is still buffered.
      deltas.drop(memberId, step.id)
      s.applyStep(memberId, step)
      if (step.usage) soon('metrics')
      return
    }
    case 'session.reset': {
      const { memberId } = envelope.payload
      deltas.drop(memberId)
      s.applySessionReset(memberId)
      return
    }
    case 'session.delta': {
      const { memberId, stepId, text } = envelope.payload
      deltas.add(memberId, stepId, text)
      return
    }
  }
}

export function connectEvents(
  store: AppStore,
  scheduler: Scheduler = frameScheduler,
  notify: Notifier = desktopNotifier(store),
): EventWiring {
  const { api } = store.getState()
  const deltas = deltaBuffer(store, scheduler)
  const refetches = refetcher(store)
  const soon = refetches.soon

  const offEvents = api.onEvent((envelope: EventEnvelope) => {
    const payload = envelope.payload as { workspaceId?: string }
    if (envelope.event !== 'workspace.opened' && payload.workspaceId !== store.getState().workspaceId) return
    applyRecordEvent(store, envelope, soon)
    applySessionEvent(store, envelope, { soon, deltas, notify })
  })
  let wasOpen = false
  const offConn = api.onConnection((state) => {
    store.setState({ connection: state })
    // Events may have been missed while the socket was down: refetch what is on screen.
    if (state === 'open' && wasOpen) void store.getState().resync()
    if (state === 'open') wasOpen = true
  })

  return {
    flush: deltas.flush,
    stop() {
      offEvents()
      offConn()
      deltas.stop()
      refetches.stop()
    },
  }
}
