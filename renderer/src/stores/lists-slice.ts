/**
 * The query cache of the task and report lists (issue 23). A list view is a query (stores/list-query.ts): its first
 * page loads when a view first shows it, later pages on demand. Events do not move rows between lists: they invalidate
 * the lists of the kinds they may affect, and the shown ones read their loaded range again from the server, which
 * alone decides membership, order, flags, validity and totals. The reads of one kind run one at a time: a refresh
 * reads every shown list of its kind that is out of date, and the kind's tab count, and applies them in one update
 * (the board's columns and its badge change together, a card is never in two columns); invalidated during a refresh, a
 * kind gets one more, which a burst shares. Rows stay in the `tasks` and `reports` caches by id; a row an event
 * carries replaces the cached one.
 */
import type { Report, ReportPage, Task, TaskPage } from '../../../shared/schemas'
import { asClientError } from '../api/errors'
import { getTasks, pageReports, pageTasks } from '../api/pages'
import { newQuery, queryKey, withNextPage, withRange, type ListKind, type ListQuery } from './list-query'
import { readQueue, type ReadQueue } from './read-queue'
import { rowReads } from './row-cache'
import type { AppState, ListsSlice, SliceCreator } from './types'

/** Rows a page brings when a list first loads or scrolls on. */
const PAGE = 100
/** The most rows one read of a refresh asks for (the server's page limit): a long loaded range in few reads. */
const REFETCH_PAGE = 500
/** How many applied edits are remembered for dedupe (an answer and its event arrive within moments). */
const REMEMBERED = 200

export const emptyListsData = {
  tasks: {},
  reports: {},
  lists: {},
  counts: { flaggedTasks: null, staleReports: null },
} satisfies Partial<AppState>

/** What the slice keeps per query beside its state: how many views show it, whether it is out of date. */
interface Book {
  shown: number
  /** Invalidated (or never read) since its last read began: read again while shown. */
  stale: boolean
  /** A next page is asked for (waiting or reading). */
  more: boolean
}

/** One page as read, with the order of its read (row-cache.ts). */
type Read = ({ kind: 'tasks'; page: TaskPage } | { kind: 'reports'; page: ReportPage }) & { order: number }
type Cached = Pick<AppState, 'tasks' | 'reports'>
/** A shown list's range as a refresh read it, or why it could not. */
type Range = { key: string; qid: number } & ({ reads: Read[] } | { error: string })

export const createListsSlice: SliceCreator<ListsSlice> = (set, get, api) => {
  const rows = rowReads()
  const books = new Map<number, Book>()
  const queues: Record<ListKind, ReadQueue> = { tasks: readQueue(), reports: readQueue() }
  let lastQid = 0
  const applied: string[] = []

  const bookOf = (qid: number): Book => {
    let book = books.get(qid)
    if (!book) books.set(qid, (book = { shown: 0, stale: true, more: false }))
    return book
  }

  const readPage = async (q: ListQuery, workspaceId: string, cursor: string | null, limit: number): Promise<Read> => {
    const order = rows.next()
    return q.kind === 'tasks'
      ? { kind: 'tasks', order, page: await pageTasks(api, workspaceId, q.filter, cursor, limit) }
      : { kind: 'reports', order, page: await pageReports(api, workspaceId, q.filter, cursor, limit) }
  }

  /** Rows the reads brought, merged into the caches (row-cache.ts keeps a newer row). */
  const withRows = (s: Cached, reads: Read[]): Cached => {
    let { tasks, reports } = s
    for (const r of reads)
      if (r.kind === 'tasks') tasks = rows.merge(tasks, r.page.items, r.order)
      else reports = rows.merge(reports, r.page.items, r.order)
    return { tasks, reports }
  }

  /** A list's loaded range from its start (at least a page), in reads of up to REFETCH_PAGE rows. */
  const readRange = async (key: string, q: ListQuery, workspaceId: string): Promise<Range> => {
    const want = Math.max(q.ids.length, PAGE)
    const reads: Read[] = []
    let got = 0
    let cursor: string | null = null
    try {
      do {
        const read = await readPage(q, workspaceId, cursor, Math.min(REFETCH_PAGE, want - got))
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
  const readCount = async (kind: ListKind, workspaceId: string): Promise<void> => {
    const n = await (
      kind === 'tasks'
        ? pageTasks(api, workspaceId, { flagged: true }, null, 1).then((p) => p.total)
        : pageReports(api, workspaceId, {}, null, 1).then((p) => p.attentionTotal)
    ).catch(() => null)
    if (n !== null && get().workspaceId === workspaceId) set((s) => ({ counts: withCount(s.counts, kind, n) }))
  }

  /**
   * Reads again the shown lists of the kind that are out of date and applies them in one update; and the kind's tab
   * count (from its list when that is one of them, else a read of its own, set when it comes).
   */
  const refresh = async (kind: ListKind) => {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const due = Object.entries(get().lists).filter(([, q]) => {
      const book = bookOf(q.qid)
      return q.kind === kind && book.shown > 0 && book.stale
    })
    for (const [, q] of due) bookOf(q.qid).stale = false
    const counting = due.some(([key]) => key === countKey[kind]) ? null : readCount(kind, workspaceId)
    const ranges = await Promise.all(due.map(([key, q]) => readRange(key, q, workspaceId)))
    if (get().workspaceId === workspaceId)
      set((s) => {
        const lists = { ...s.lists }
        let cached: Cached = s
        let counts = s.counts
        for (const range of ranges) {
          // A list a workspace switch dropped (or made again) is not this read's.
          const held = lists[range.key]
          if (held?.qid !== range.qid) continue
          const book = bookOf(range.qid)
          if ('error' in range) {
            book.stale = true
            lists[range.key] = { ...held, loading: book.more, error: range.error }
            continue
          }
          cached = withRows(cached, range.reads)
          const pages = range.reads.map((r) => r.page)
          lists[range.key] = withRange(held, pages, book.more)
          const last = range.reads.at(-1)
          if (range.key === countKey[kind] && last) counts = withCount(counts, kind, countOf(last))
        }
        return { lists, tasks: cached.tasks, reports: cached.reports, counts }
      })
    await counting
    // The report cards show their task's key.
    const taskIds = ranges.flatMap((r) =>
      'reads' in r ? r.reads.flatMap((x) => (x.kind === 'reports' ? x.page.items.map((i) => i.taskId) : [])) : [],
    )
    if (taskIds.length) await get().needTasks(taskIds)
  }

  const refreshKind = (kind: ListKind) => queues[kind].refetch(() => refresh(kind))

  /** Writes one query's next state and the rows its read brought, in one update. */
  const commit = (key: string, qid: number, next: (q: ListQuery) => ListQuery, reads: Read[]) => {
    set((s) => {
      const q = s.lists[key]
      return q?.qid === qid ? { lists: { ...s.lists, [key]: next(q) }, ...withRows(s, reads) } : {}
    })
  }

  // Rows asked for by id (a report's task, a chip's task): gathered over one tick, fetched in one call.
  let wanted = new Set<string>()
  let asking: Promise<void> | null = null
  const needTasks = (ids: string[]): Promise<void> => {
    const s = get()
    for (const id of ids) if (!s.tasks[id]) wanted.add(id)
    if (!wanted.size) return asking ?? Promise.resolve()
    asking ??= Promise.resolve().then(async () => {
      const batch = [...wanted]
      wanted = new Set()
      asking = null
      const workspaceId = get().workspaceId
      const order = rows.next()
      const found = await getTasks(api, batch).catch(() => [])
      if (get().workspaceId === workspaceId) set((st) => ({ tasks: rows.merge(st.tasks, found, order) }))
    })
    return asking
  }

  return {
    ...emptyListsData,
    needTasks,

    showList(kind, filter) {
      if (!get().workspaceId) return () => undefined
      const key = queryKey(kind, filter)
      let q = get().lists[key]
      if (!q) {
        const made = newQuery(kind, filter, ++lastQid)
        set((s) => ({ lists: { ...s.lists, [key]: made } }))
        // Books of queries a workspace switch dropped.
        const live = new Set(Object.values(get().lists).map((x) => x.qid))
        for (const qid of books.keys()) if (!live.has(qid)) books.delete(qid)
        q = made
      }
      const book = bookOf(q.qid)
      book.shown++
      if (book.stale) void refreshKind(kind)
      return () => {
        book.shown--
      }
    },

    loadMore(kind, filter) {
      const key = queryKey(kind, filter)
      const q = get().lists[key]
      if (!q?.loaded || !q.nextCursor) return Promise.resolve()
      const { qid } = q
      const book = bookOf(qid)
      if (book.more) return Promise.resolve()
      book.more = true
      commit(key, qid, (held) => ({ ...held, loading: true }), [])
      // After the kind's read in flight: the cursor is the one the latest read left.
      return queues[kind].queue(async () => {
        const held = get().lists[key]
        const workspaceId = get().workspaceId
        let read: Read | null = null
        try {
          if (held?.qid === qid && held.nextCursor && workspaceId)
            read = await readPage(held, workspaceId, held.nextCursor, PAGE)
        } catch (err) {
          book.more = false
          commit(key, qid, (h) => ({ ...h, loading: false, error: asClientError(err).message }), [])
          return
        }
        book.more = false
        if (!read) {
          commit(key, qid, (h) => ({ ...h, loading: false }), [])
          return
        }
        const page = read.page
        commit(key, qid, (h) => withNextPage(h, page), [read])
        if (read.kind === 'reports') await get().needTasks(read.page.items.map((r) => r.taskId))
      })
    },

    invalidateLists(kinds = ['tasks', 'reports']) {
      if (!get().workspaceId) return Promise.resolve()
      for (const q of Object.values(get().lists)) if (kinds.includes(q.kind)) bookOf(q.qid).stale = true
      return Promise.all(kinds.map(refreshKind)).then(() => undefined)
    },

    applyTask(t: Task) {
      const s = get()
      if (t.workspaceId !== s.workspaceId) return
      // An older version changes nothing, nor the same row again (an action's answer, then its event); the same version
      // may still bring news (a task's branch head moves without a new version).
      const tasks = rows.merge(s.tasks, [t], rows.next())
      if (tasks === s.tasks) return
      set({ tasks })
      void get().invalidateLists(['tasks'])
    },

    applyReport(r: Report) {
      if (r.workspaceId !== get().workspaceId) return
      set((st) => ({ reports: rows.merge(st.reports, [r], rows.next()) }))
      void get().invalidateLists(['reports'])
    },

    applyDecisionChange(decision, impact) {
      // The edit's answer and its decision.changed event: one invalidation (either one's reads follow the edit).
      const mark = `${decision.id}@${impact.version}`
      if (applied.includes(mark)) return Promise.resolve()
      applied.push(mark)
      if (applied.length > REMEMBERED) applied.shift()
      if (decision.workspaceId !== get().workspaceId) return Promise.resolve()
      get().applyDecision(decision)
      // Any task or report linking the decision may have changed its flags, links or validity.
      return get().invalidateLists()
    },
  }
}
