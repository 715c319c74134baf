import type { HarnessSlice, SliceCreator } from './types'

export const createHarnessSlice: SliceCreator<HarnessSlice> = (set, get, api) => ({
  decisions: {},
  proposals: {},
  tasks: {},
  reports: {},
  metrics: null,
  applyDecision(d) {
    set((s) => (d.workspaceId !== s.workspaceId || (s.decisions[d.id]?.version ?? 0) > d.version ? {} : { decisions: { ...s.decisions, [d.id]: d } }))
  },
  applyProposal(p) {
    // A decided proposal never goes back to pending (a late reply must not undo a newer event).
    set((s) => (p.workspaceId !== s.workspaceId || (p.state === 'pending' && s.proposals[p.id] && s.proposals[p.id].state !== 'pending') ? {} : { proposals: { ...s.proposals, [p.id]: p } }))
  },
  applyTask(t) {
    set((s) => (t.workspaceId !== s.workspaceId || (s.tasks[t.id]?.version ?? 0) > t.version ? {} : { tasks: { ...s.tasks, [t.id]: t } }))
  },
  applyReport(r) {
    set((s) => (r.workspaceId !== s.workspaceId ? {} : { reports: { ...s.reports, [r.id]: r } }))
  },
  async refreshMetrics() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const metrics = await api.call('metrics.get', { workspaceId })
    if (get().workspaceId === workspaceId) set({ metrics })
  },
  async refreshReports() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const reports = await api.call('reports.list', { workspaceId })
    if (get().workspaceId === workspaceId) set({ reports: Object.fromEntries(reports.map((r) => [r.id, r])) })
  },
  async refreshTasks() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const tasks = await api.call('tasks.list', { workspaceId })
    if (get().workspaceId !== workspaceId) return
    // A task event that overtook this fetch carries a later version: keep it.
    set((s) => ({ tasks: Object.fromEntries(tasks.map((t) => [t.id, (s.tasks[t.id]?.version ?? 0) > t.version ? s.tasks[t.id] : t])) }))
  },
  async refreshSessionInfos() {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const infos = await api.call('sessions.list', { workspaceId })
    if (get().workspaceId !== workspaceId) return
    for (const info of infos) get().applySessionInfo(info)
  },
})
