import { asClientError } from '../api/errors'
import { appendText, mergeSteps, upsertStep } from './steps'
import { emptyTaskSession, sessionOf } from './workspace-slice'
import type { Step } from '../../../shared/schemas'
import type { AppState, AppStore, SessionState, SessionsSlice, SliceCreator, TaskSessionState } from './types'

/** Steps fetched on opening a session: enough for the first screen, the rest pages in on scroll. */
export const FIRST_PAGE = 30
export const OLDER_PAGE = 100

function patch(s: AppState, memberId: string, change: (x: SessionState) => Partial<SessionState>): Partial<AppState> {
  const held = s.sessions[memberId] ?? sessionOf(memberId)
  return { sessions: { ...s.sessions, [memberId]: { ...held, ...change(held) } } }
}

const isOnScreen = (s: AppState, memberId: string) => s.view === 'team' || s.selectedMemberId === memberId

export const taskSessionKey = (memberId: string, taskId: string) => `${memberId}/${taskId}`

function patchTask(
  s: AppState,
  key: string,
  change: (x: TaskSessionState) => Partial<TaskSessionState>,
): Partial<AppState> {
  const held = s.taskSessions[key] ?? emptyTaskSession()
  return { taskSessions: { ...s.taskSessions, [key]: { ...held, ...change(held) } } }
}

/** The task sessions of every member but this one (a reset gives queued messages new ids: read them again). */
const withoutMember = (all: Record<string, TaskSessionState>, memberId: string) =>
  Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith(`${memberId}/`)))

/** Changes one session (a member's, or a member's on a task) in the state. */
type PatchOne = (s: AppState, change: (x: TaskSessionState) => Partial<TaskSessionState>) => Partial<AppState>

/** The newest page merged in: older pages already loaded stay, and so does whether more precede them. */
function withNewest(x: TaskSessionState, steps: Step[], hasMore: boolean): Partial<TaskSessionState> {
  const first = steps[0]
  const oldest = x.steps[0]
  const keepsOlder = x.loaded && first && oldest && oldest.seq < first.seq
  return { steps: mergeSteps(x.steps, steps), hasMore: keepsOlder ? x.hasMore : hasMore, loaded: true, loading: false }
}

/** Reads the page before the oldest loaded step, when there is one and no such read is under way. */
async function loadOlderPage(
  set: AppStore['setState'],
  held: TaskSessionState | undefined,
  patchOne: PatchOne,
  read: (before: number) => Promise<{ steps: Step[]; hasMore: boolean }>,
): Promise<void> {
  if (!held || !held.loaded || !held.hasMore || held.loadingOlder) return
  const before = held.steps.find((st) => Number.isInteger(st.seq))?.seq
  if (before === undefined) return
  set((s) => patchOne(s, () => ({ loadingOlder: true })))
  try {
    const page = await read(before)
    set((s) =>
      patchOne(s, (x) => ({ steps: mergeSteps(page.steps, x.steps), hasMore: page.hasMore, loadingOlder: false })),
    )
  } catch (err) {
    set((s) => patchOne(s, () => ({ loadingOlder: false, error: asClientError(err).message })))
  }
}

type TaskSessionsPart = Pick<
  SessionsSlice,
  'taskSessions' | 'sessionTask' | 'openTaskSession' | 'showAllTurns' | 'loadTaskSession' | 'loadOlderOfTask'
>

/** A member's turns on one task (sessions.get with taskId), and which task each member's session shows. */
const createTaskSessionsPart: SliceCreator<TaskSessionsPart> = (set, get, api) => ({
  taskSessions: {},
  sessionTask: {},

  openTaskSession(memberId, taskId) {
    get().selectMember(memberId)
    set((s) => ({ sessionTask: { ...s.sessionTask, [memberId]: taskId } }))
    void get().loadTaskSession(memberId, taskId)
  },

  showAllTurns(memberId) {
    if (!get().sessionTask[memberId]) return
    set((s) => {
      const { [memberId]: _gone, ...rest } = s.sessionTask
      return { sessionTask: rest }
    })
  },

  async loadTaskSession(memberId, taskId) {
    const key = taskSessionKey(memberId, taskId)
    if (get().taskSessions[key]?.loading) return
    set((s) => patchTask(s, key, () => ({ loading: true, error: null })))
    try {
      const { steps, hasMore } = await api.call('sessions.get', { memberId, taskId, limit: FIRST_PAGE })
      set((s) => patchTask(s, key, (x) => withNewest(x, steps, hasMore)))
    } catch (err) {
      set((s) => patchTask(s, key, () => ({ loading: false, error: asClientError(err).message })))
    }
  },

  loadOlderOfTask(memberId, taskId) {
    const key = taskSessionKey(memberId, taskId)
    return loadOlderPage(
      set,
      get().taskSessions[key],
      (s, change) => patchTask(s, key, change),
      (before) => api.call('sessions.get', { memberId, taskId, before, limit: OLDER_PAGE }),
    )
  },
})

/** The members' whole sessions: their pages, and the events that change them. */
const createMemberSessionsPart: SliceCreator<Omit<SessionsSlice, keyof TaskSessionsPart>> = (set, get, api) => ({
  sessions: {},

  async loadSession(memberId, force = false) {
    const held = get().sessions[memberId]
    if (held && (held.loading || (held.loaded && !force))) return
    set((s) => patch(s, memberId, () => ({ loading: true, error: null })))
    try {
      const page = await api.call('sessions.get', { memberId, limit: FIRST_PAGE })
      const { steps, hasMore, ...info } = page
      // Keep older pages already loaded when re-fetching the newest one.
      set((s) => patch(s, memberId, (x) => ({ ...withNewest(x, steps, hasMore), info })))
    } catch (err) {
      set((s) => patch(s, memberId, () => ({ loading: false, error: asClientError(err).message })))
    }
  },

  loadOlder(memberId) {
    return loadOlderPage(
      set,
      get().sessions[memberId],
      (s, change) => patch(s, memberId, change),
      (before) => api.call('sessions.get', { memberId, before, limit: OLDER_PAGE }),
    )
  },

  applySessionReset(memberId) {
    set((s) => ({
      sessions: { ...s.sessions, [memberId]: sessionOf(memberId) },
      taskSessions: withoutMember(s.taskSessions, memberId),
    }))
    void get().loadSession(memberId, true)
    const taskId = get().sessionTask[memberId]
    if (taskId) void get().loadTaskSession(memberId, taskId)
  },

  applyStep(memberId, step) {
    set((s) =>
      patch(s, memberId, (x) => {
        const finished =
          step.kind === 'model' && step.status === 'done' && step.toolCalls.length === 0 && step.text.length > 0
        const was = x.steps.find((st) => st.id === step.id)
        const newlyFinished = finished && (!was || was.status !== 'done')
        return {
          steps: upsertStep(x.steps, step),
          unread: x.unread + (newlyFinished && !isOnScreen(s, memberId) ? 1 : 0),
        }
      }),
    )
  },

  applyDeltas(deltas) {
    set((s) => {
      const sessions = { ...s.sessions }
      for (const [memberId, byStep] of deltas) {
        const held = sessions[memberId] ?? sessionOf(memberId)
        let steps = held.steps
        for (const [stepId, text] of byStep) steps = appendText(steps, memberId, stepId, text)
        sessions[memberId] = { ...held, steps }
      }
      return { sessions }
    })
  },

  applySessionInfo(info) {
    set((s) => (s.members[info.memberId] ? patch(s, info.memberId, () => ({ info })) : {}))
  },

  markRead(memberId) {
    if (get().sessions[memberId]?.unread) set((s) => patch(s, memberId, () => ({ unread: 0 })))
  },
})

export const createSessionsSlice: SliceCreator<SessionsSlice> = (set, get, api) => ({
  ...createTaskSessionsPart(set, get, api),
  ...createMemberSessionsPart(set, get, api),
})
