import { asClientError } from '../api/errors'
import { appendText, mergeSteps, upsertStep } from './steps'
import { sessionOf } from './workspace-slice'
import type { AppState, SessionState, SessionsSlice, SliceCreator } from './types'

/** Steps fetched on opening a session: enough for the first screen, the rest pages in on scroll. */
export const FIRST_PAGE = 30
export const OLDER_PAGE = 100

function patch(s: AppState, memberId: string, change: (x: SessionState) => Partial<SessionState>): Partial<AppState> {
  const held = s.sessions[memberId] ?? sessionOf(memberId)
  return { sessions: { ...s.sessions, [memberId]: { ...held, ...change(held) } } }
}

const isOnScreen = (s: AppState, memberId: string) => s.view === 'team' || s.selectedMemberId === memberId

export const createSessionsSlice: SliceCreator<SessionsSlice> = (set, get, api) => ({
  sessions: {},

  async loadSession(memberId, force = false) {
    const held = get().sessions[memberId]
    if (held && (held.loading || (held.loaded && !force))) return
    set((s) => patch(s, memberId, () => ({ loading: true, error: null })))
    try {
      const page = await api.call('sessions.get', { memberId, limit: FIRST_PAGE })
      const { steps, hasMore, ...info } = page
      set((s) =>
        patch(s, memberId, (x) => {
          // Keep older pages already loaded when re-fetching the newest one.
          const merged = mergeSteps(x.steps, steps)
          const first = steps[0]
          const oldest = x.steps[0]
          const keepsOlder = x.loaded && first && oldest && oldest.seq < first.seq
          return { steps: merged, hasMore: keepsOlder ? x.hasMore : hasMore, info, loaded: true, loading: false }
        }),
      )
    } catch (err) {
      set((s) => patch(s, memberId, () => ({ loading: false, error: asClientError(err).message })))
    }
  },

  async loadOlder(memberId) {
    const held = get().sessions[memberId]
    if (!held || !held.loaded || !held.hasMore || held.loadingOlder) return
    const before = held.steps.find((st) => Number.isInteger(st.seq))?.seq
    if (before === undefined) return
    set((s) => patch(s, memberId, () => ({ loadingOlder: true })))
    try {
      const page = await api.call('sessions.get', { memberId, before, limit: OLDER_PAGE })
      set((s) =>
        patch(s, memberId, (x) => ({
          steps: mergeSteps(page.steps, x.steps),
          hasMore: page.hasMore,
          loadingOlder: false,
        })),
      )
    } catch (err) {
      set((s) => patch(s, memberId, () => ({ loadingOlder: false, error: asClientError(err).message })))
    }
  },

  applySessionReset(memberId) {
    set((s) => ({ sessions: { ...s.sessions, [memberId]: sessionOf(memberId) } }))
    void get().loadSession(memberId, true)
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
