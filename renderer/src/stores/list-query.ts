/**
 * A list view is a query keyed by (kind, filter): the ids of the pages loaded so far in the server's order, the
 * server's totals and its cursor. The server alone decides membership, order, flags, validity and totals: events
 * invalidate queries and a shown query reads its loaded range again (stores/lists-slice.ts). Rows live in the
 * `tasks` and `reports` caches by id.
 */
import type { ReportPage, TaskPage } from '../../../shared/schemas'
import type { ReportFilter, TaskFilter } from '../api/pages'

export type ListKind = 'tasks' | 'reports'
export type FilterOf<K extends ListKind> = K extends 'tasks' ? TaskFilter : ReportFilter

interface QueryState {
  /** Which query this is: one made again (after a workspace switch) is another; answers for the old one are dropped. */
  qid: number
  ids: string[]
  /** Rows that match the filter, loaded or not. */
  total: number
  nextCursor: string | null
  /** A first read has arrived. */
  loaded: boolean
  /** The first page or the next one is on its way (a refetch keeps the rows shown: not loading). */
  loading: boolean
  error: string | null
}
export interface TaskQuery extends QueryState {
  kind: 'tasks'
  filter: TaskFilter
}
export interface ReportQuery extends QueryState {
  kind: 'reports'
  filter: ReportFilter
  /** Stale reports among those matching every filter but `stale` (reports.page). */
  staleTotal: number
  /** Those of them no newer report of the same task, kind and author supersedes (reports.page). */
  attentionTotal: number
}
export type ListQuery = TaskQuery | ReportQuery

/** A stable name for a filter (same filter, same list, whatever the key order or status order). */
export function filterKey(filter: TaskFilter | ReportFilter): string {
  const f = filter as Record<string, unknown>
  const parts = Object.keys(f)
    .filter((k) => f[k] !== undefined)
    .sort()
    .map((k) => [k, Array.isArray(f[k]) ? [...(f[k] as string[])].sort() : f[k]])
  return JSON.stringify(parts)
}

export const queryKey = (kind: ListKind, filter: TaskFilter | ReportFilter) => `${kind}:${filterKey(filter)}`

export function newQuery<K extends ListKind>(kind: K, filter: FilterOf<K>, qid: number): ListQuery {
  const base = { qid, ids: [], total: 0, nextCursor: null, loaded: false, loading: true, error: null }
  return kind === 'tasks'
    ? { ...base, kind: 'tasks', filter: filter as TaskFilter }
    : { ...base, kind: 'reports', filter: filter as ReportFilter, staleTotal: 0, attentionTotal: 0 }
}

/** The query's totals as the page gives them. */
function totals(q: ListQuery, page: TaskPage | ReportPage): Partial<ListQuery> {
  return q.kind === 'reports' && 'staleTotal' in page
    ? { total: page.total, staleTotal: page.staleTotal, attentionTotal: page.attentionTotal }
    : { total: page.total }
}

/** Same ids in the same order: the held array is kept, so a list whose rows did not move does not render again. */
function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i])
}

/**
 * The query after its range was read again from the start: the server's ids (in its order), totals (the last page
 * read) and cursor replace what it held.
 */
export function withRange(q: ListQuery, pages: (TaskPage | ReportPage)[], loading: boolean): ListQuery {
  const last = pages.at(-1)
  if (!last) return q
  const ids = [...new Set(pages.flatMap((p) => p.items.map((r) => r.id)))]
  return {
    ...q,
    ...totals(q, last),
    ids: sameIds(ids, q.ids) ? q.ids : ids,
    nextCursor: last.nextCursor,
    loaded: true,
    loading,
    error: null,
  } as ListQuery
}

/** The query after its next page arrived: appended (a row it already holds stays where it is). */
export function withNextPage(q: ListQuery, page: TaskPage | ReportPage): ListQuery {
  const held = new Set(q.ids)
  return {
    ...q,
    ...totals(q, page),
    ids: [...q.ids, ...page.items.map((r) => r.id).filter((id) => !held.has(id))],
    nextCursor: page.nextCursor,
    loading: false,
    error: null,
  } as ListQuery
}
