import type { SliceCreator, UiSlice } from './types'

export const createUiSlice: SliceCreator<UiSlice> = (set, get) => ({
  theme: 'system',
  lastWorkspaceId: null,
  lastMemberId: null,
  selectedMemberId: null,
  view: 'member',
  rightTab: 'decisions',
  panelOpen: true,
  focusDecisionId: null,
  focusTaskId: null,
  focusReportId: null,
  paletteOpen: false,
  newRecord: null,
  newTaskOn: null,
  focusStepId: null,
  composerFocusTick: 0,
  showShortcuts: false,
  notifyDesktop: false,
  setTheme: (theme) => set({ theme }),
  setNotifyDesktop: (notifyDesktop) => set({ notifyDesktop }),
  selectMember(id) {
    set({ selectedMemberId: id, view: 'member', focusStepId: null, ...(id ? { lastMemberId: id } : {}) })
    if (!id) return
    // Chosen as a member (the sidebar, a link): its whole session, not the turns of one task shown before.
    get().showAllTurns(id)
    get().markRead(id)
    // Ask for the session's page now rather than after the first render.
    void get().loadSession(id)
  },
  setView: (view) => set({ view }),
  setRightTab: (rightTab) => set({ rightTab, panelOpen: true }),
  setPanelOpen: (panelOpen) => set({ panelOpen }),
  openDecision: (focusDecisionId) =>
    set(focusDecisionId ? { focusDecisionId, rightTab: 'decisions', panelOpen: true } : { focusDecisionId }),
  openTask: (focusTaskId) => set(focusTaskId ? { focusTaskId, rightTab: 'tasks', panelOpen: true } : { focusTaskId }),
  openReport: (focusReportId) =>
    set(focusReportId ? { focusReportId, rightTab: 'reports', panelOpen: true } : { focusReportId }),
  setPaletteOpen: (paletteOpen) => set({ paletteOpen }),
  startNew: (newRecord, decisionId) =>
    set(
      newRecord
        ? {
            newRecord,
            newTaskOn: newRecord === 'task' ? (decisionId ?? null) : null,
            rightTab: newRecord === 'decision' ? 'decisions' : 'tasks',
            panelOpen: true,
            focusDecisionId: null,
            focusTaskId: null,
          }
        : { newRecord, newTaskOn: null },
    ),
  focusStep(memberId, stepId) {
    set({ selectedMemberId: memberId, view: 'member', focusStepId: stepId, lastMemberId: memberId })
    get().markRead(memberId)
  },
  focusComposer: () => set((s) => ({ composerFocusTick: s.composerFocusTick + 1 })),
  setShowShortcuts: (showShortcuts) => set({ showShortcuts }),
})
