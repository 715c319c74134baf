import type { StoreApi } from 'zustand'
import type {
  Decision,
  Member,
  Metrics,
  Proposal,
  Report,
  SessionInfo,
  Step,
  SystemInfo,
  Task,
  Workspace,
  WorkspaceSettings,
} from '../../../shared/schemas'
import type { ClientApi, ConnectionState } from '../api/bridge-client'
import type { CompactImpact } from '../api/pages'
import type { FilterOf, ListKind, ListQuery } from './list-query'

export interface SessionState {
  info: SessionInfo
  /** Ascending seq; may hold only the steps seen through events until the first page is loaded. */
  steps: Step[]
  hasMore: boolean
  loaded: boolean
  loading: boolean
  loadingOlder: boolean
  error: string | null
  /** Replies finished while the member was not on screen. */
  unread: number
}

export interface WorkspaceSlice {
  workspaces: Workspace[]
  workspacesLoaded: boolean
  workspaceId: string | null
  /** True while the selected workspace's records load. */
  workspaceLoading: boolean
  connection: ConnectionState
  /** What the core can promise about its machine (where keys live, whether commands are sandboxed). */
  system: SystemInfo | null
  /** The selected workspace's settings (isolation, base branch), and what opening it said about the folder. */
  workspaceSettings: WorkspaceSettings | null
  workspaceNotes: string[]
  loadWorkspaces(): Promise<void>
  openWorkspace(repoPath: string, name?: string): Promise<Workspace>
  selectWorkspace(id: string | null): Promise<void>
  /** Reloads the selected workspace's first screen and its loaded list pages (after a reconnect). */
  resync(): Promise<void>
}

export interface MembersSlice {
  members: Record<string, Member>
  memberOrder: string[]
  applyMember(member: Member): void
}

/** A member's session read per task: the pages of its turns on that task (sessions.get with taskId). */
export type TaskSessionState = Omit<SessionState, 'info' | 'unread'>

export interface SessionsSlice {
  sessions: Record<string, SessionState>
  /** By taskSessionKey(memberId, taskId); live steps come from the member's session (SessionList merges them). */
  taskSessions: Record<string, TaskSessionState>
  /** The task whose turns a member's session shows instead of all of them (UI state, by member id). */
  sessionTask: Record<string, string>
  /** Opens the member's session showing only its turns on the task. */
  openTaskSession(memberId: string, taskId: string): void
  /** Back to every turn of the member's session. */
  showAllTurns(memberId: string): void
  loadTaskSession(memberId: string, taskId: string): Promise<void>
  loadOlderOfTask(memberId: string, taskId: string): Promise<void>
  loadSession(memberId: string, force?: boolean): Promise<void>
  loadOlder(memberId: string): Promise<void>
  /** The member's conversation started anew (sessions.reset): forget its steps and load the new ones. */
  applySessionReset(memberId: string): void
  applyStep(memberId: string, step: Step): void
  applyDeltas(deltas: Map<string, Map<string, string>>): void
  applySessionInfo(info: SessionInfo): void
  markRead(memberId: string): void
}

export interface HarnessSlice {
  decisions: Record<string, Decision>
  proposals: Record<string, Proposal>
  metrics: Metrics | null
  applyDecision(d: Decision): void
  applyProposal(p: Proposal): void
  refreshMetrics(): Promise<void>
  /** Refetches every member's session state (pending notices change with decision edits). */
  refreshSessionInfos(): Promise<void>
}

/** The query cache of the task and report lists (stores/lists-slice.ts). */
export interface ListsSlice {
  /** Rows by id as the server last sent them (pages, reads by id, events); views read them, lists hold ids. */
  tasks: Record<string, Task>
  reports: Record<string, Report>
  /** The list queries of this workspace, by queryKey(kind, filter). */
  lists: Record<string, ListQuery>
  /** The tab counts (flagged tasks, reports needing attention) of the whole workspace; null until counted. */
  counts: { flaggedTasks: number | null; staleReports: number | null }
  /**
   * Caches a task the server sent (an action's answer, a task.changed event) and invalidates the task lists; a
   * version already held changes nothing.
   */
  applyTask(t: Task): void
  /** Caches a report the server sent (report.submitted) and invalidates the report lists. */
  applyReport(r: Report): void
  /** Fetches the tasks not yet cached among `ids` (calls within one tick share one tasks.getMany). */
  needTasks(ids: string[]): Promise<void>
  /**
   * Shows a list: its first page loads unless it is loaded, and while it is shown an invalidation reads it again.
   * Returns the function that stops showing it.
   */
  showList<K extends ListKind>(kind: K, filter: FilterOf<K>): () => void
  /** Loads the list's next page (after any read of it in flight). */
  loadMore<K extends ListKind>(kind: K, filter: FilterOf<K>): Promise<void>
  /**
   * Marks the lists of these kinds (all by default) out of date: the shown ones read their loaded range again, the
   * others when next shown, and the kinds' tab counts are read again. One refresh in flight per kind, one more after.
   */
  invalidateLists(kinds?: ListKind[]): Promise<void>
  /**
   * Applies an edit's outcome once, whether it comes from the HTTP answer (decisions.update, decisions.revert) or the
   * decision.changed event (deduped by decision id + version): the decision, and the lists invalidated.
   */
  applyDecisionChange(decision: Decision, impact: CompactImpact): Promise<void>
}

export type Theme = 'system' | 'light' | 'dark'
export type RightTab = 'decisions' | 'tasks' | 'reports' | 'inbox' | 'figures'

export interface UiSlice {
  theme: Theme
  lastWorkspaceId: string | null
  /** The member last open (a UI preference kept across reloads): opened again with its workspace. */
  lastMemberId: string | null
  selectedMemberId: string | null
  view: 'member' | 'team'
  rightTab: RightTab
  panelOpen: boolean
  /** A decision opened in the right panel. */
  focusDecisionId: string | null
  /** A task shown above the board, and a report above the reports (what search jumped to). */
  focusTaskId: string | null
  focusReportId: string | null
  /** The command palette (Ctrl/⌘ K): search over records and messages, and the common actions. */
  paletteOpen: boolean
  /** A "New decision" / "New task" asked for from the palette: the panel opens its form once, then clears it. */
  newRecord: 'decision' | 'task' | null
  /** The decision a new task is opened on ("New task on D-1"): the form starts with it linked. */
  newTaskOn: string | null
  /** A step to scroll to and highlight in the selected session. */
  focusStepId: string | null
  composerFocusTick: number
  showShortcuts: boolean
  /**
   * Desktop notifications when a member waits for approval or finishes while the window is not focused. Opt-in
   * (off by default), a UI preference of this browser or desktop app.
   */
  notifyDesktop: boolean
  setTheme(t: Theme): void
  setNotifyDesktop(on: boolean): void
  selectMember(id: string | null): void
  setView(v: 'member' | 'team'): void
  setRightTab(t: RightTab): void
  setPanelOpen(open: boolean): void
  openDecision(id: string | null): void
  openTask(id: string | null): void
  openReport(id: string | null): void
  setPaletteOpen(open: boolean): void
  startNew(kind: 'decision' | 'task' | null, decisionId?: string): void
  focusStep(memberId: string, stepId: string | null): void
  focusComposer(): void
  setShowShortcuts(v: boolean): void
}

export type AppState = WorkspaceSlice &
  MembersSlice &
  SessionsSlice &
  HarnessSlice &
  ListsSlice &
  UiSlice & {
    api: ClientApi
    /** The host has native dialogs (the desktop app); the browser gets Concord's own folder browser. */
    nativeDialogs: boolean
  }
export type AppStore = StoreApi<AppState>
export type SliceCreator<T> = (set: AppStore['setState'], get: AppStore['getState'], api: ClientApi) => T
