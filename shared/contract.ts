/**
 * The API contract: one map from method name to its params schema and result type, and one map of
 * events. Electron IPC, the preload `window.api`, the browser bridge and the renderer client are all
 * derived from these two maps.
 */
import type { z } from 'zod'
import type * as s from './schemas'
import { workspaceMethods } from './contract/workspace-methods'
import { memberMethods } from './contract/member-methods'
import { decisionMethods } from './contract/decision-methods'
import { taskMethods } from './contract/task-methods'
import { reportMethods } from './contract/report-methods'
import { sessionMethods } from './contract/session-methods'
import { runnerMethods } from './contract/runner-methods'

export const methods = {
  ...workspaceMethods,
  ...memberMethods,
  ...decisionMethods,
  ...taskMethods,
  ...reportMethods,
  ...sessionMethods,
  ...runnerMethods,
} as const

export type Methods = typeof methods
export type MethodName = keyof Methods
export type Params<M extends MethodName> = z.input<Methods[M]['params']>
export type ParsedParams<M extends MethodName> = z.output<Methods[M]['params']>
export type Result<M extends MethodName> = Methods[M]['result']

/** Pushes from the main process. Every payload names its workspace so a client can filter. */
export interface Events {
  'workspace.opened': { workspace: s.Workspace }
  'member.changed': { workspaceId: string; member: s.Member }
  'decision.created': { workspaceId: string; decision: s.Decision }
  /** `impact` is compact (counts + first items; see Impact) and is the very object the edit's answer carries: serialized once. */
  'decision.changed': {
    workspaceId: string
    decision: s.Decision
    impact: s.Impact
    editorial: boolean
    reason: string
    actorId: string | null
  }
  'proposal.changed': { workspaceId: string; proposal: s.Proposal }
  /**
   * `readinessOnly`: nothing of the task moved, its readiness did (a report on it came in, or a decision its reports
   * rest on but it does not depend on changed); automatic turns ignore those (runtime/auto-turns.ts).
   */
  'task.changed': { workspaceId: string; task: s.Task; readinessOnly?: boolean }
  'report.submitted': { workspaceId: string; report: s.Report }
  /** Compact: the first ids and the counts (see NoticeSummary); consumers that need every id read the notice. */
  'notice.created': { workspaceId: string; notice: s.NoticeSummary }
  'session.state': { workspaceId: string; session: s.SessionInfo }
  'session.step': { workspaceId: string; memberId: string; step: s.Step }
  'session.delta': { workspaceId: string; memberId: string; stepId: string; text: string }
  /** The member's conversation started anew (sessions.reset): reload its steps. */
  'session.reset': { workspaceId: string; memberId: string }
  /** A task tree's setup or run command started, printed (at most a few times a second) or ended. */
  'task.treeRun': { workspaceId: string; taskId: string; run: s.TreeRun }
  /** A task's diff comments changed (added, deleted, sent, resolved by a delivery): the whole list. */
  'diffComments.changed': { workspaceId: string; taskId: string; comments: s.DiffComment[] }
  /** The workspace's settings were saved; `budgetFreed`: its budget was spent before and is not now. */
  'workspace.settings': { workspaceId: string; settings: s.WorkspaceSettings; budgetFreed: boolean }
}

export type EventName = keyof Events
/** A discriminated union over the event names: narrowing on `event` types `payload`. */
export type EventEnvelope<E extends EventName = EventName> = { [K in E]: { event: K; payload: Events[K] } }[E]

export type ApiResponse<T> = { ok: true; value: T } | { ok: false; error: import('./errors').ApiErrorShape }
