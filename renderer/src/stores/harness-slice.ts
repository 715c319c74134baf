import { isFlagged } from './list-logic'
import { moveReport, moveTask } from './lists-slice'
import type { Report, Task } from '../../../shared/schemas'
import type { AppState, HarnessSlice, SliceCreator } from './types'

export const createHarnessSlice: SliceCreator<HarnessSlice> = (set, get, api) => ({
  decisions: {},
  proposals: {},
  tasks: {},
  reports: {},
  metrics: null,
  applyDecision(d) {
    set((s) =>
      d.workspaceId !== s.workspaceId || (s.decisions[d.id]?.version ?? 0) > d.version
        ? {}
        : { decisions: { ...s.decisions, [d.id]: d } },
    )
  },
  applyProposal(p) {
    // A decided proposal never goes back to pending (a late reply must not undo a newer event).
    set((s) =>
      p.workspaceId !== s.workspaceId ||
      (p.state === 'pending' && (s.proposals[p.id]?.state ?? 'pending') !== 'pending')
        ? {}
        : { proposals: { ...s.proposals, [p.id]: p } },
    )
  },
  applyTask(t) {
    return get().applyRows([t], [])
  },
  applyReport(r, isNew = false) {
    let uncertain = false
    set((s) => {
      const out = reportApplied(s, r, isNew)
      uncertain = out.uncertain
      return out.patch
    })
    return uncertain
  },
  applyRows(tasks, reports) {
    let uncertain = false
    set((s) => {
      let w: AppState = s
      for (const t of tasks) {
        const out = taskApplied(w, t)
        uncertain ||= out.uncertain
        w = { ...w, ...out.patch }
      }
      for (const r of reports) {
        const out = reportApplied(w, r, false)
        uncertain ||= out.uncertain
        w = { ...w, ...out.patch }
      }
      return w === s
        ? {}
        : { tasks: w.tasks, taskLists: w.taskLists, reports: w.reports, reportLists: w.reportLists, counts: w.counts }
    })
    return uncertain
  },
  async refreshMetrics() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const metrics = await api.call('metrics.get', { workspaceId })
    if (get().workspaceId === workspaceId) set({ metrics })
  },
  async refreshSessionInfos() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const infos = await api.call('sessions.list', { workspaceId })
    if (get().workspaceId !== workspaceId) return
    for (const info of infos) get().applySessionInfo(info)
  },
})

/** What caching one task does to the state: the task, its moves between loaded lists, the flagged count. */
function taskApplied(s: AppState, t: Task): { patch: Partial<AppState>; uncertain: boolean } {
  if (t.workspaceId !== s.workspaceId || (s.tasks[t.id]?.version ?? 0) > t.version)
    return { patch: {}, uncertain: false }
  const prev = s.tasks[t.id]
  const moved = moveTask(s, prev, t)
  // A task never seen: new at version 1, else its past is unknown and the count is asked again.
  const wasFlagged = prev ? isFlagged(prev) : t.version === 1 ? false : null
  const { flaggedTasks } = s.counts
  const delta = wasFlagged === null ? 0 : Number(isFlagged(t)) - Number(wasFlagged)
  return {
    uncertain: moved.uncertain || (wasFlagged === null && flaggedTasks !== null),
    patch: {
      tasks: { ...s.tasks, [t.id]: t },
      taskLists: moved.taskLists,
      counts: flaggedTasks === null || !delta ? s.counts : { ...s.counts, flaggedTasks: flaggedTasks + delta },
    },
  }
}

/** The same for a report (`isNew`: just submitted, in no list before) and the stale count. */
function reportApplied(s: AppState, r: Report, isNew: boolean): { patch: Partial<AppState>; uncertain: boolean } {
  if (r.workspaceId !== s.workspaceId) return { patch: {}, uncertain: false }
  const prev = s.reports[r.id]
  const moved = moveReport(s, prev, r, isNew)
  const wasStale = prev ? prev.validity === 'stale' : isNew ? false : null
  const { staleReports } = s.counts
  // The badge counts stale reports no newer one supersedes: a superseded one never moves it, a new one may
  // supersede a stale one (the server recounts).
  const delta = wasStale === null || r.supersededBy ? 0 : Number(r.validity === 'stale') - Number(wasStale)
  return {
    uncertain: moved.uncertain || ((wasStale === null || isNew) && staleReports !== null),
    patch: {
      reports: { ...s.reports, [r.id]: r },
      reportLists: moved.reportLists,
      counts: staleReports === null || !delta ? s.counts : { ...s.counts, staleReports: staleReports + delta },
    },
  }
}
