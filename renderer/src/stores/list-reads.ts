/**
 * The reads behind the lists slice (stores/lists-slice.ts): a list's pages, its loaded range read again, a kind's tab
 * count, and the refresh that applies a kind's out-of-date lists in one update.
 */
import type { ReportPage, TaskPage } from '../../../shared/schemas'
import type { ClientApi } from '../api/bridge-client'
import { asClientError } from '../api/errors'
import { pageReports, pageTasks } from '../api/pages'
import { queryKey, withRange, type ListKind, type ListQuery } from './list-query'
import { readQueue, type ReadQueue } from './read-queue'
import { rowReads, type RowReads } from './row-cache'
import type { AppState, AppStore } from './types'

/** Rows a page brings when a list first loads or scrolls on. */
export const PAGE = 100
/** The most rows one read of a refresh asks for (the server's page limit): a long loaded range in few reads. */
const REFETCH_PAGE = 500

/** What the slice keeps per query beside its state: how many views show it, whether it is out of date. */
export interface Book {
  shown: number
  /** Invalidated (or never read) since its last read began: read again while shown. */
  stale: boolean
  /** A next page is asked for (waiting or reading). */
  more: boolean
}

/** One page as read, with the order of its read (row-cache.ts). */
export type Read = ({ kind: 'tasks'; page: TaskPage } | { kind: 'reports'; page: ReportPage }) & { order: number }
type Cached = Pick<AppState, 'tasks' | 'reports'>
/** A shown list's range as a refresh read it, or why it could not. */
type Range = { key: string; qid: number } & ({ reads: Read[] } | { error: string })

/** The lists slice's own state beside the store: the row reads' order, the books, one read queue per kind. */
export interface ListReads {
  set: AppStore['setState']
  get: AppStore['getState']
  api: ClientApi
  rows: RowReads
  books: Map<number, Book>
  queues: Record<ListKind, ReadQueue>
}

export function listReads(set: AppStore['setState'], get: AppStore['getState'], api: ClientApi): ListReads {
  return { set, get, api, rows: rowReads(), books: new Map(), queues: { tasks: readQueue(), reports: readQueue() } }
}

export function bookOf(c: ListReads, qid: number): Book {
  let book = c.books.get(qid)
  if (!book) c.books.set(qid, (book = { shown: 0, stale: true, more: false }))
  return book
}

export async function readPage(
  c: ListReads,
  q: ListQuery,
  workspaceId: string,
  cursor: string | null,
  limit: number,
): Promise<Read> {
  const order = c.rows.next()
  return q.kind === 'tasks'
    ? { kind: 'tasks', order, page: await pageTasks(c.api, workspaceId, q.filter, cursor, limit) }
    : { kind: 'reports', order, page: await pageReports(c.api, workspaceId, q.filter, cursor, limit) }
}

/** Rows the reads brought, merged into the caches (row-cache.ts keeps a newer row). */
export function withRows(c: ListReads, s: Cached, reads: Read[]): Cached {
  let { tasks, reports } = s
  for (const r of reads)
    if (r.kind === 'tasks') tasks = c.rows.merge(tasks, r.page.items, r.order)
    else reports = c.rows.merge(reports, r.page.items, r.order)
  return { tasks, reports }
}

/** A list's loaded range from its start (at least a page), in reads of up to REFETCH_PAGE rows. */
async function readRange(c: ListReads, key: string, q: ListQuery, workspaceId: string): Promise<Range> {
  const want = Math.max(q.ids.length, PAGE)
  const reads: Read[] = []
  let got = 0
  let cursor: string | null = null
  try {
    do {
      const read = await readPage(c, q, workspaceId, cursor, Math.min(REFETCH_PAGE, want - got))
      reads.push(read)
      got += read.page.items.length
      cursor = read.page.nextCursor
    } while (cursor && got < want)
  } catch (err) {
    return { key, qid: q.qid, error: asClientError(err).message }
  }
  return { key, qid: q.qid, reads }
}

/** The list whose pages carry a kind's tab count: {flagged} tasks (total), all reports (attentionTotal). */
const countKey: Record<ListKind, string> = {
  tasks: queryKey('tasks', { flagged: true }),
  reports: queryKey('reports', {}),
}
const countOf = (read: Read): number => (read.kind === 'tasks' ? read.page.total : read.page.attentionTotal)
const withCount = (counts: AppState['counts'], kind: ListKind, n: number): AppState['counts'] =>
  kind === 'tasks' ? { ...counts, flaggedTasks: n } : { ...counts, staleReports: n }

/** The kind's tab count from the server, set when it comes. */
async function readCount(c: ListReads, kind: ListKind, workspaceId: string): Promise<void> {
  const n = await (
    kind === 'tasks'
      ? pageTasks(c.api, workspaceId, { flagged: true }, null, 1).then((p) => p.total)
      : pageReports(c.api, workspaceId, {}, null, 1).then((p) => p.attentionTotal)
  ).catch(() => null)
  if (n !== null && c.get().workspaceId === workspaceId) c.set((s) => ({ counts: withCount(s.counts, kind, n) }))
}

/** The ranges a refresh read, applied to the lists, the row caches and the kind's tab count. */
function withRanges(c: ListReads, s: AppState, kind: ListKind, ranges: Range[]): Partial<AppState> {
  const lists = { ...s.lists }
  let cached: Cached = s
  let counts = s.counts
  for (const range of ranges) {
    // A list a workspace switch dropped (or made again) is not this read's.
    const held = lists[range.key]
    if (held?.qid !== range.qid) continue
    const book = bookOf(c, range.qid)
    if ('error' in range) {
      book.stale = true
      lists[range.key] = { ...held, loading: book.more, error: range.error }
      continue
    }
    cached = withRows(c, cached, range.reads)
    const pages = range.reads.map((r) => r.page)
    lists[range.key] = withRange(held, pages, book.more)
    const last = range.reads.at(-1)
    if (range.key === countKey[kind] && last) counts = withCount(counts, kind, countOf(last))
  }
  return { lists, tasks: cached.tasks, reports: cached.reports, counts }
}

/**
 * Reads again the shown lists of the kind that are out of date and applies them in one update; and the kind's tab
 * count (from its list when that is one of them, else a read of its own, set when it comes).
 */
async function refresh(c: ListReads, kind: ListKind): Promise<void> {
  const workspaceId = c.get().workspaceId
  if (!workspaceId) return
  const due = Object.entries(c.get().lists).filter(([, q]) => {
    const book = bookOf(c, q.qid)
    return q.kind === kind && book.shown > 0 && book.stale
  })
  for (const [, q] of due) bookOf(c, q.qid).stale = false
  const counting = due.some(([key]) => key === countKey[kind]) ? null : readCount(c, kind, workspaceId)
  const ranges = await Promise.all(due.map(([key, q]) => readRange(c, key, q, workspaceId)))
  if (c.get().workspaceId === workspaceId) c.set((s) => withRanges(c, s, kind, ranges))
  await counting
  // The report cards show their task's key.
  const taskIds = ranges.flatMap((r) =>
    'reads' in r ? r.reads.flatMap((x) => (x.kind === 'reports' ? x.page.items.map((i) => i.taskId) : [])) : [],
  )
  if (taskIds.length) await c.get().needTasks(taskIds)
}

export function refreshKind(c: ListReads, kind: ListKind): Promise<void> {
  return c.queues[kind].refetch(() => refresh(c, kind))
}

/** Writes one query's next state and the rows its read brought, in one update. */
export function commit(c: ListReads, key: string, qid: number, next: (q: ListQuery) => ListQuery, reads: Read[]) {
  c.set((s) => {
    const q = s.lists[key]
    return q?.qid === qid ? { lists: { ...s.lists, [key]: next(q) }, ...withRows(c, s, reads) } : {}
  })
}
