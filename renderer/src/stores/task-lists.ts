/**
 * The hooks views read paged lists through. Same filter, same list (shared by every view that asks); the
 * first page loads on first use, events keep it current (stores/lists-slice.ts), loadMore fetches the next.
 */
import { useCallback, useEffect, useMemo } from 'react'
import type { Report, Task } from '../../../shared/schemas'
import type { ReportFilter, TaskFilter } from '../api/pages'
import { useApp } from './app-store'
import { filterKey } from './list-logic'
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

export const selectTaskList = (key: string) => (s: AppState) =>
  rowsOf(taskRows, s.taskLists[key]?.ids ?? noIds, s.tasks)
export const selectReportList = (key: string) => (s: AppState) =>
  rowsOf(reportRows, s.reportLists[key]?.ids ?? noIds, s.reports)

export function useTaskList(filter: TaskFilter): TaskList {
  const key = filterKey(filter)
  // The filter object may be new on every render; the key is what identifies the list.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stable = useMemo(() => filter, [key])
  const workspaceId = useApp((s) => s.workspaceId)
  const ensure = useApp((s) => s.ensureTaskList)
  const more = useApp((s) => s.loadMoreTasks)
  useEffect(() => {
    if (workspaceId) void ensure(stable)
  }, [workspaceId, ensure, stable])
  const tasks = useApp(useMemo(() => selectTaskList(key), [key]))
  const total = useApp((s) => s.taskLists[key]?.total ?? 0)
  const hasMore = useApp((s) => !!s.taskLists[key]?.nextCursor)
  const loading = useApp((s) => s.taskLists[key]?.loading ?? true)
  const loadMore = useCallback(() => void more(stable), [more, stable])
  return { tasks, total, hasMore, loading, loadMore }
}

export function useReportList(filter: ReportFilter): ReportList {
  const key = filterKey(filter)
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stable = useMemo(() => filter, [key])
  const workspaceId = useApp((s) => s.workspaceId)
  const ensure = useApp((s) => s.ensureReportList)
  const more = useApp((s) => s.loadMoreReports)
  useEffect(() => {
    if (workspaceId) void ensure(stable)
  }, [workspaceId, ensure, stable])
  const reports = useApp(useMemo(() => selectReportList(key), [key]))
  const total = useApp((s) => s.reportLists[key]?.total ?? 0)
  const staleTotal = useApp((s) => s.reportLists[key]?.staleTotal ?? 0)
  const hasMore = useApp((s) => !!s.reportLists[key]?.nextCursor)
  const loading = useApp((s) => s.reportLists[key]?.loading ?? true)
  const loadMore = useCallback(() => void more(stable), [more, stable])
  return { reports, total, staleTotal, hasMore, loading, loadMore }
}
