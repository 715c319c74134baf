import { isFlagged } from './list-logic'
import { moveReport, moveTask } from './lists-slice'
import type { HarnessSlice, SliceCreator } from './types'

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
    let uncertain = false
    set((s) => {
      if (t.workspaceId !== s.workspaceId || (s.tasks[t.id]?.version ?? 0) > t.version) return {}
      const prev = s.tasks[t.id]
      const moved = moveTask(s, prev, t)
      // A task never seen: new at version 1, else its past is unknown and the count is asked again.
      const wasFlagged = prev ? isFlagged(prev) : t.version === 1 ? false : null
      const { flaggedTasks } = s.counts
      uncertain = moved.uncertain || (wasFlagged === null && flaggedTasks !== null)
      const delta = wasFlagged === null ? 0 : Number(isFlagged(t)) - Number(wasFlagged)
      return {
        tasks: { ...s.tasks, [t.id]: t },
        taskLists: moved.taskLists,
        counts: flaggedTasks === null || !delta ? s.counts : { ...s.counts, flaggedTasks: flaggedTasks + delta },
      }
    })
    return uncertain
  },
  applyReport(r, isNew = false) {
    let uncertain = false
    set((s) => {
      if (r.workspaceId !== s.workspaceId) return {}
      const prev = s.reports[r.id]
      const moved = moveReport(s, prev, r, isNew)
      const wasStale = prev ? prev.validity === 'stale' : isNew ? false : null
      const { staleReports } = s.counts
      uncertain = moved.uncertain || (wasStale === null && staleReports !== null)
      const delta = wasStale === null ? 0 : Number(r.validity === 'stale') - Number(wasStale)
      return {
        reports: { ...s.reports, [r.id]: r },
        reportLists: moved.reportLists,
        counts: staleReports === null || !delta ? s.counts : { ...s.counts, staleReports: staleReports + delta },
      }
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
