/**
 * How a use case gets its context: it takes the workspace's `ctx` first — `fn(ctx, …)` — and `fn(h, ctx, …)` only
 * when it needs more than that workspace (its repository folder, the data folder, the secret store: the Harness).
 * Only the faces (api/ handlers, the MCP tools, the CLI) and the runtime's hosts build a ctx (`h.ctx`, `h.ctxOf`);
 * the harness never does, except where the workspace is what is made (openWorkspace) or the call spans workspaces
 * (pages.ts, the registry's archived list), which take `h` alone.
 */
import { ApiError } from '../../../shared/errors'
import type { EventName, Events } from '../../../shared/contract'
import type { ReadableStore } from '../store/readable-store'
import type { WorkspaceStore } from '../store/workspace-store'
import type { DecisionRow } from '../store/decisions-repo'
import type { MemberRow } from '../store/members-repo'
import type { TaskRow } from '../store/tasks-repo'
import { parseId, type EntityKind } from './ids'

export type Emit = <E extends EventName>(event: E, payload: Events[E]) => void

/** What every harness operation works in: one workspace's store and the event sink. */
export interface Ctx {
  wsId: string
  store: WorkspaceStore
  emit: Emit
}

/** A request context for code that only reads (pages): the store's reading methods, nothing to emit. */
export interface ReadCtx {
  wsId: string
  store: ReadableStore
}

export interface Actor {
  /** null: the human user, always a decider. */
  memberId: number | null
  authority: MemberRow['authority']
  name: string
}

/**
 * Row number of an entity id that must belong to this workspace. Another workspace's id is `not_found`:
 * from inside one workspace, the others do not exist.
 */
export function rowOf(ctx: ReadCtx, kind: EntityKind, id: string, field: string): number {
  const { workspaceId, n } = parseId(id, kind, field)
  if (workspaceId !== ctx.wsId) throw new ApiError('not_found', `${field}: there is no ${kind} ${id} in this workspace`)
  return n
}

export function actorOf(ctx: ReadCtx, actorId: string | undefined, field = 'actorId'): Actor {
  if (actorId === undefined) return { memberId: null, authority: 'decider', name: 'you' }
  const n = rowOf(ctx, 'member', actorId, field)
  const row = ctx.store.members.get(n)
  if (!row) throw new ApiError('not_found', `${field}: member ${actorId} does not exist`)
  return { memberId: n, authority: row.authority, name: row.name }
}

export function memberRowOf(ctx: ReadCtx, memberId: string, field: string): number {
  const n = rowOf(ctx, 'member', memberId, field)
  if (!ctx.store.members.get(n)) throw new ApiError('not_found', `${field}: member ${memberId} does not exist`)
  return n
}

/** The decision of an id in this workspace, or not_found. */
export function decisionRow(ctx: ReadCtx, decisionId: string, field = 'decisionId'): DecisionRow {
  const n = rowOf(ctx, 'decision', decisionId, field)
  const row = ctx.store.decisions.get(n)
  if (!row) throw new ApiError('not_found', `${field}: decision ${decisionId} does not exist`)
  return row
}

export function taskRow(ctx: ReadCtx, taskId: string, field = 'taskId'): TaskRow {
  const row = ctx.store.tasks.get(rowOf(ctx, 'task', taskId, field))
  if (!row) throw new ApiError('not_found', `${field}: task ${taskId} does not exist`)
  return row
}

/**
 * Moving, editing or acknowledging a task: its assignee or a decider (the human is always a decider).
 * Authority is over decisions; an observer can still work on the task assigned to it.
 */
export function requireAssigneeOrDecider(
  actor: Actor,
  assigneeRowId: number | null,
  taskKey: string,
  what: string,
): void {
  if (actor.authority === 'decider') return
  if (actor.memberId !== null && actor.memberId === assigneeRowId) return
  const who = assigneeRowId === null ? 'a decider' : 'its assignee or a decider'
  throw new ApiError('forbidden', `${actor.name} may not ${what} ${taskKey}: only ${who} (or you) can`)
}

export function requireDecider(actor: Actor, what: string): void {
  if (actor.authority !== 'decider') {
    throw new ApiError(
      'forbidden',
      `${actor.name} is a ${actor.authority} and may not ${what}; only a decider (or you) can`,
    )
  }
}
