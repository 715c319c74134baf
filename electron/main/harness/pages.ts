/**
 * Set-wise reads: tasks and reports by id (one batch call for what a client has on screen) and page by page
 * with the filters applied in the store, so no client needs a whole list to show or patch a few rows.
 */
import type { ParsedParams } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { Report, ReportPage, Task, TaskPage } from '../../../shared/schemas'
import type { Harness } from './harness'
import { decisionRow, memberRowOf, taskRow, type ReadCtx } from './context'
import { parseId, type EntityKind } from './ids'
import { toReports, toTasks } from './mappers'

export const DEFAULT_PAGE = 100

/** The ids grouped by workspace (each must exist), in the order given, without repeats. */
function byWorkspace(
  h: Harness,
  kind: EntityKind,
  ids: string[],
): { order: string[]; groups: Map<string, { ctx: ReadCtx; rows: number[] }> } {
  const groups = new Map<string, { ctx: ReadCtx; rows: number[] }>()
  const order = [...new Set(ids)]
  order.forEach((id, i) => {
    const { workspaceId, n } = parseId(id, kind, `ids[${i}]`)
    let g = groups.get(workspaceId)
    if (!g) groups.set(workspaceId, (g = { ctx: h.ctx(workspaceId, `ids[${i}]`), rows: [] }))
    g.rows.push(n)
  })
  return { order, groups }
}

function getMany<T extends { id: string }>(
  h: Harness,
  kind: 'task' | 'report',
  ids: string[],
  load: (ctx: ReadCtx, rows: number[]) => T[],
): T[] {
  const { order, groups } = byWorkspace(h, kind, ids)
  const found = new Map<string, T>()
  for (const g of groups.values()) for (const item of load(g.ctx, g.rows)) found.set(item.id, item)
  return order.flatMap((id) => found.get(id) ?? [])
}

export function getTasks(h: Harness, ids: string[]): Task[] {
  return getMany(h, 'task', ids, (ctx, rows) => toTasks(ctx.wsId, ctx.store, ctx.store.tasks.getMany(rows)))
}

export function getReports(h: Harness, ids: string[]): Report[] {
  return getMany(h, 'report', ids, (ctx, rows) => toReports(ctx.wsId, ctx.store, ctx.store.reports.getMany(rows)))
}

/** A page cursor is the last row id of the page before, as text. */
export function cursorOf(cursor: string | undefined, method: string): number | undefined {
  if (cursor === undefined) return undefined
  if (!/^\d{1,15}$/.test(cursor))
    throw new ApiError('invalid_params', `cursor: not a cursor of ${method} (pass back nextCursor as it came)`)
  return Number(cursor)
}

export function pageTasks(ctx: ReadCtx, p: ParsedParams<'tasks.page'>): TaskPage {
  const limit = p.limit ?? DEFAULT_PAGE
  const filter = {
    statuses: p.status,
    assigneeId: p.assigneeId === undefined ? undefined : memberRowOf(ctx, p.assigneeId, 'assigneeId'),
    flagged: p.flagged,
    decisionId: p.decisionId === undefined ? undefined : decisionRow(ctx, p.decisionId).id,
  }
  const { rows, total } = ctx.store.tasks.page(filter, cursorOf(p.cursor, 'tasks.page') ?? 0, limit + 1)
  const items = rows.slice(0, limit)
  return {
    items: toTasks(ctx.wsId, ctx.store, items),
    nextCursor: rows.length > limit ? String(items.at(-1)?.id) : null,
    total,
  }
}

export function pageReports(ctx: ReadCtx, p: ParsedParams<'reports.page'>): ReportPage {
  const limit = p.limit ?? DEFAULT_PAGE
  const filter = {
    taskId: p.taskId === undefined ? undefined : taskRow(ctx, p.taskId).id,
    authorId: p.authorId === undefined ? undefined : memberRowOf(ctx, p.authorId, 'authorId'),
    kind: p.kind,
    stale: p.stale,
  }
  const { rows, total, staleTotal, attentionTotal } = ctx.store.reports.page(
    filter,
    cursorOf(p.cursor, 'reports.page') ?? Number.MAX_SAFE_INTEGER,
    limit + 1,
  )
  const items = rows.slice(0, limit)
  return {
    items: toReports(ctx.wsId, ctx.store, items),
    nextCursor: rows.length > limit ? String(items.at(-1)?.id) : null,
    total,
    staleTotal,
    attentionTotal,
  }
}
