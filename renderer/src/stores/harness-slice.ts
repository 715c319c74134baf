import type { HarnessSlice, SliceCreator } from './types'

export const createHarnessSlice: SliceCreator<HarnessSlice> = (set, get, api) => ({
  decisions: {},
  proposals: {},
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
