/**
 * Pure rules of the paged lists: which filter a row matches, where it sits (tasks by key number ascending,
 * reports newest first, as the server pages them), and how a changed row moves between loaded lists.
 */
import type { Report, Task } from '../../../shared/schemas'
import { keyNumber } from '../../../shared/keys'
import type { ReportFilter, TaskFilter } from '../api/pages'

/** One loaded view of a list: the ids loaded so far (in order), the server's total and where to go on. */
export interface ListState<F> {
  filter: F
  ids: string[]
  total: number
  nextCursor: string | null
  /** The first page has arrived. */
  loaded: boolean
  loading: boolean
  error: string | null
}
export interface ReportListState extends ListState<ReportFilter> {
  staleTotal: number
}

/** A stable name for a filter (same filter, same list, whatever the key order or status order). */
export function filterKey(filter: TaskFilter | ReportFilter): string {
  const f = filter as Record<string, unknown>
  const parts = Object.keys(f)
    .filter((k) => f[k] !== undefined)
    .sort()
    .map((k) => [k, Array.isArray(f[k]) ? [...(f[k] as string[])].sort() : f[k]])
  return JSON.stringify(parts)
}

export { keyNumber }

/** As the core decided it (Task.flagged): the renderer does not re-derive the rule. */
export const isFlagged = (t: Task) => t.flagged

export function taskMatches(f: TaskFilter, t: Task): boolean {
  if (t.archivedAt) return false // archived: in no list until restored
  if (f.status && !f.status.includes(t.status)) return false
  if (f.assigneeId !== undefined && t.assigneeId !== f.assigneeId) return false
  if (f.flagged !== undefined && isFlagged(t) !== f.flagged) return false
  if (f.decisionId !== undefined && !t.links.some((l) => l.decisionId === f.decisionId)) return false
  return true
}

export function reportMatches(f: ReportFilter, r: Report): boolean {
  if (f.taskId !== undefined && r.taskId !== f.taskId) return false
  if (f.authorId !== undefined && r.authorId !== f.authorId) return false
  if (f.kind !== undefined && r.kind !== f.kind) return false
  if (f.stale !== undefined && (r.validity === 'stale') !== f.stale) return false
  return true
}

/** Position order: negative when a comes first. */
export type Order = (aKey: string, bKey: string) => number
export const taskOrder: Order = (a, b) => keyNumber(a) - keyNumber(b)
export const reportOrder: Order = (a, b) => keyNumber(b) - keyNumber(a)

/**
 * Moves one row in or out of a loaded list after it changed (or appeared). `prevMatches`: whether the row
 * matched before (false for a new row, null when the store never saw it). Inside the loaded range the ids
 * are the truth; beyond it a row is only counted (the next page brings it), and with an unknown past the
 * total cannot be adjusted: `uncertain` asks the caller to recount.
 */
export function placeRow<L extends ListState<unknown>>(
  list: L,
  row: { id: string; key: string },
  nowMatches: boolean,
  prevMatches: boolean | null,
  keyOf: (id: string) => string | undefined,
  order: Order,
): { list: L; uncertain: boolean } {
  const same = { list, uncertain: false }
  if (!list.loaded) return same
  const at = list.ids.indexOf(row.id)
  if (at >= 0)
    return nowMatches
      ? same
      : {
          list: { ...list, ids: list.ids.filter((id) => id !== row.id), total: Math.max(0, list.total - 1) },
          uncertain: false,
        }
  const lastId = list.ids.at(-1)
  const last = lastId === undefined ? undefined : keyOf(lastId)
  const withinLoaded = list.nextCursor === null || (last !== undefined && order(row.key, last) < 0)
  if (withinLoaded) {
    // The loaded range is complete: a row not in it did not match before.
    if (!nowMatches) return same
    const ids = [...list.ids]
    let i = ids.length
    while (i > 0) {
      const k = keyOf(ids[i - 1]!) // i > 0
      if (k === undefined || order(k, row.key) <= 0) break
      i--
    }
    ids.splice(i, 0, row.id)
    return { list: { ...list, ids, total: list.total + 1 }, uncertain: false }
  }
  if (prevMatches === null) return { list, uncertain: true }
  if (prevMatches === nowMatches) return same
  return { list: { ...list, total: Math.max(0, list.total + (nowMatches ? 1 : -1)) }, uncertain: false }
}
