import type { Member } from '../../../shared/schemas'
import type { ClientApi } from '../api/bridge-client'
import { asClientError } from '../api/errors'
import { emptyListsData } from './lists-slice'
import { idleInfo } from './steps'
import type { AppState, SessionState, SliceCreator, TaskSessionState, WorkspaceSlice } from './types'

const byId = <T extends { id: string }>(items: T[]) =>
  Object.fromEntries(items.map((i) => [i.id, i])) as Record<string, T>

export const emptyWorkspaceData = {
  members: {},
  memberOrder: [],
  sessions: {},
  taskSessions: {},
  sessionTask: {},
  decisions: {},
  proposals: {},
  metrics: null,
  ...emptyListsData,
  selectedMemberId: null,
  focusDecisionId: null,
  focusTaskId: null,
  focusReportId: null,
  paletteOpen: false,
  newRecord: null,
  focusStepId: null,
} satisfies Partial<AppState>

/** A session's steps before anything is loaded (a member's, or a member's on a task). */
export const emptyTaskSession = (): TaskSessionState => ({
  steps: [],
  hasMore: false,
  loaded: false,
  loading: false,
  loadingOlder: false,
  error: null,
})

function sessionOf(memberId: string): SessionState {
  return { info: idleInfo(memberId), ...emptyTaskSession(), unread: 0 }
}

/** A workspace's first screen: its team, decisions, proposals, figures, sessions and archived members. */
async function readFirstScreen(api: ClientApi, workspaceId: string) {
  const [members, decisions, proposals, metrics, sessionInfos, archived] = await Promise.all([
    api.call('members.list', { workspaceId }),
    api.call('decisions.list', { workspaceId }),
    api.call('proposals.list', { workspaceId }),
    api.call('metrics.get', { workspaceId }).catch(() => null),
    // The session runtime may be unavailable (e.g. an older core): members then show as idle.
    api.call('sessions.list', { workspaceId }).catch(() => []),
    // Archived members are not in the team, but tasks and messages still name them.
    api.call('archive.list', { workspaceId }).catch(() => ({ members: [], tasks: [] })),
  ])
  return { members, decisions, proposals, metrics, sessionInfos, archived }
}

type FirstScreen = Awaited<ReturnType<typeof readFirstScreen>>

/** The first screen applied, and the member to show: `keepSelection` is the one shown before (a reselect). */
function withFirstScreen(s: AppState, screen: FirstScreen, keepSelection: string | null): Partial<AppState> {
  const { members, decisions, proposals, metrics, sessionInfos, archived } = screen
  const sessions: Record<string, SessionState> = {}
  for (const m of members) {
    const held = s.sessions[m.id] ?? sessionOf(m.id)
    const info = sessionInfos.find((i) => i.memberId === m.id)
    sessions[m.id] = info ? { ...held, info } : held
  }
  // The member open before a reload opens again when it belongs to this workspace.
  const remembered = s.lastMemberId
  const isMember = (id: string | null) => Boolean(id && members.some((m: Member) => m.id === id))
  // A member the user chose while the workspace loaded wins over both.
  const chosen = s.selectedMemberId !== keepSelection && isMember(s.selectedMemberId) ? s.selectedMemberId : null
  const selected =
    chosen ?? (isMember(keepSelection) ? keepSelection : isMember(remembered) ? remembered : (members[0]?.id ?? null))
  return {
    workspaceLoading: false,
    members: { ...byId(archived.members), ...byId(members) },
    memberOrder: members.map((m) => m.id),
    sessions,
    decisions: byId(decisions),
    proposals: byId(proposals),
    metrics,
    selectedMemberId: selected,
  }
}

export const createWorkspaceSlice: SliceCreator<WorkspaceSlice> = (set, get, api) => ({
  workspaces: [],
  workspacesLoaded: false,
  workspaceId: null,
  workspaceLoading: false,
  connection: 'connecting',
  system: null,
  workspaceSettings: null,
  workspaceNotes: [],

  async loadWorkspaces() {
    // Once per app: it does not change while Concord runs. A failure leaves the notes out, nothing else.
    if (!get().system)
      void api.call('system.info', {}).then(
        (system) => set({ system }),
        () => undefined,
      )
    const workspaces = await api.call('workspaces.list', {})
    set({ workspaces, workspacesLoaded: true })
  },

  async openWorkspace(repoPath, name) {
    const opened = await api.call('workspaces.open', name ? { repoPath, name } : { repoPath })
    const { settings, notes, ...ws } = opened
    set((s) => ({ workspaces: s.workspaces.some((w) => w.id === ws.id) ? s.workspaces : [...s.workspaces, ws] }))
    await get().selectWorkspace(ws.id)
    // What opening it said about the folder (not a git repository, submodules, …) stays until another is chosen.
    set({ workspaceSettings: settings, workspaceNotes: notes })
    return ws
  },

  async selectWorkspace(id) {
    if (id === null) {
      set({ workspaceId: null, ...emptyWorkspaceData })
      return
    }
    const keepSelection = get().workspaceId === id ? get().selectedMemberId : null
    set({
      workspaceId: id,
      lastWorkspaceId: id,
      workspaceLoading: true,
      ...(get().workspaceId === id ? {} : { ...emptyWorkspaceData, workspaceNotes: [], workspaceSettings: null }),
    })
    void api.call('workspaces.settings', { workspaceId: id }).then(
      (workspaceSettings) => get().workspaceId === id && set({ workspaceSettings }),
      () => undefined,
    )
    const workspaceId = id
    // The first screen only: tasks and reports come page by page as their views ask (useTaskList, useReportList). The
    // tab counts are read now, and the lists it already had (selected again: a reconnect) are out of date.
    void get().invalidateLists()
    const screen = await readFirstScreen(api, workspaceId)
    if (get().workspaceId !== workspaceId) return
    set((s) => withFirstScreen(s, screen, keepSelection))
  },

  async resync() {
    const { workspaceId } = get()
    try {
      await get().loadWorkspaces()
      if (!workspaceId) return
      // Events may have been missed: selecting it again reads the first screen, the tab counts and every list again
      // (the shown ones now, the others when next shown).
      await get().selectWorkspace(workspaceId)
      const loaded = Object.entries(get().sessions).filter(([, s]) => s.loaded)
      await Promise.all(loaded.map(([memberId]) => get().loadSession(memberId, true)))
    } catch (err) {
      console.warn('resync failed:', asClientError(err).message)
    }
  },
})

export { sessionOf }
