/**
 * The hooks views read paged lists through. Same filter, same query (shared by every view that shows it); the first
 * page loads on first use, events invalidate it and the server's answer replaces it while it is shown
 * (stores/lists-slice.ts), loadMore fetches the next page.
 */
import { useCallback, useEffect, useMemo } from 'react'
import type { Report, Task } from '../../../shared/schemas'
import type { ReportFilter, TaskFilter } from '../api/pages'
import { useApp } from './app-store'
import { queryKey, type FilterOf, type ListKind } from './list-query'
import type { AppState } from './types'

export type { ReportFilter, TaskFilter } from '../api/pages'

export interface TaskList {
  tasks: Task[]
  total: number
  hasMore: boolean
  loading: boolean
  loadMore(): void
}

export interface ReportList {
  reports: Report[]
  total: number
  /** Stale reports among all that match the filter (loaded or not). */
  staleTotal: number
  hasMore: boolean
  loading: boolean
  loadMore(): void
}

/** Rows of a list, the same array while neither the ids nor any of their rows changed (a stable selector result). */
interface Held<T> {
  record: Record<string, T>
  all: (T | undefined)[]
  rows: T[]
}
function rowsOf<T>(cache: WeakMap<object, Held<T>>, ids: string[], record: Record<string, T>): T[] {
  const held = cache.get(ids)
  if (
    held &&
    (held.record === record ||
      held.all.every((r, i) => {
        const id = ids[i]
        return id !== undefined && r === record[id]
      }))
  ) {
    held.record = record
    return held.rows
  }
  const all = ids.map((id) => record[id])
  const rows = all.filter((r): r is T => r !== undefined)
  cache.set(ids, { record, all, rows })
  return rows
}
const taskRows = new WeakMap<object, Held<Task>>()
const reportRows = new WeakMap<object, Held<Report>>()
const noIds: string[] = []

export const selectTaskList = (key: string) => (s: AppState) => rowsOf(taskRows, s.lists[key]?.ids ?? noIds, s.tasks)
export const selectReportList = (key: string) => (s: AppState) =>
  rowsOf(reportRows, s.lists[key]?.ids ?? noIds, s.reports)
const staleTotalOf = (key: string) => (s: AppState) => {
  const q = s.lists[key]
  return q?.kind === 'reports' ? q.staleTotal : 0
}

/** What every paged list hook shares: the stable filter, the first page on use, the totals and loadMore. */
function useListQuery<K extends ListKind>(kind: K, filter: FilterOf<K>) {
  const key = queryKey(kind, filter)
  // The filter object may be new on every render; the key is what identifies the list.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stable = useMemo(() => filter, [key])
  const workspaceId = useApp((s) => s.workspaceId)
  const show = useApp((s) => s.showList)
  const more = useApp((s) => s.loadMore)
  useEffect(() => (workspaceId ? show(kind, stable) : undefined), [workspaceId, show, kind, stable])
  const total = useApp((s) => s.lists[key]?.total ?? 0)
  const hasMore = useApp((s) => !!s.lists[key]?.nextCursor)
  const loading = useApp((s) => s.lists[key]?.loading ?? true)
  const loadMore = useCallback(() => void more(kind, stable), [more, kind, stable])
  return { key, total, hasMore, loading, loadMore }
}

export function useTaskList(filter: TaskFilter): TaskList {
  const { key, ...list } = useListQuery('tasks', filter)
  const tasks = useApp(useMemo(() => selectTaskList(key), [key]))
  return { tasks, ...list }
}

export function useReportList(filter: ReportFilter): ReportList {
  const { key, ...list } = useListQuery('reports', filter)
  const reports = useApp(useMemo(() => selectReportList(key), [key]))
  const staleTotal = useApp(useMemo(() => staleTotalOf(key), [key]))
  return { reports, staleTotal, ...list }
}
