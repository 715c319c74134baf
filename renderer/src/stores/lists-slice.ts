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
import type { Report, Task } from '../../../shared/schemas'
import { asClientError } from '../api/errors'
import { getTasks } from '../api/pages'
import { newQuery, queryKey, withNextPage, type FilterOf, type ListKind } from './list-query'
import { bookOf, commit, listReads, PAGE, readPage, refreshKind, type ListReads, type Read } from './list-reads'
import type { AppState, ListsSlice, SliceCreator } from './types'

/** How many applied edits are remembered for dedupe (an answer and its event arrive within moments). */
const REMEMBERED = 200

export const emptyListsData = {
  tasks: {},
  reports: {},
  lists: {},
  counts: { flaggedTasks: null, staleReports: null },
} satisfies Partial<AppState>

/** Rows asked for by id (a report's task, a chip's task): gathered over one tick, fetched in one call. */
function taskNeeds(c: ListReads): ListsSlice['needTasks'] {
  let wanted = new Set<string>()
  let asking: Promise<void> | null = null
  return (ids) => {
    const s = c.get()
    for (const id of ids) if (!s.tasks[id]) wanted.add(id)
    if (!wanted.size) return asking ?? Promise.resolve()
    asking ??= Promise.resolve().then(async () => {
      const batch = [...wanted]
      wanted = new Set()
      asking = null
      const workspaceId = c.get().workspaceId
      const order = c.rows.next()
      const found = await getTasks(c.api, batch).catch(() => [])
      if (c.get().workspaceId === workspaceId) c.set((st) => ({ tasks: c.rows.merge(st.tasks, found, order) }))
    })
    return asking
  }
}

/** Shows a list (making its query the first time); the returned function stops showing it. */
function showList<K extends ListKind>(c: ListReads, lastQid: () => number, kind: K, filter: FilterOf<K>): () => void {
  if (!c.get().workspaceId) return () => undefined
  const key = queryKey(kind, filter)
  let q = c.get().lists[key]
  if (!q) {
    const made = newQuery(kind, filter, lastQid())
    c.set((s) => ({ lists: { ...s.lists, [key]: made } }))
    // Books of queries a workspace switch dropped.
    const live = new Set(Object.values(c.get().lists).map((x) => x.qid))
    for (const qid of c.books.keys()) if (!live.has(qid)) c.books.delete(qid)
    q = made
  }
  const book = bookOf(c, q.qid)
  book.shown++
  if (book.stale) void refreshKind(c, kind)
  return () => {
    book.shown--
  }
}

/** Reads a list's next page, after the kind's read in flight: the cursor is the one the latest read left. */
function loadMore<K extends ListKind>(c: ListReads, kind: K, filter: FilterOf<K>): Promise<void> {
  const key = queryKey(kind, filter)
  const q = c.get().lists[key]
  if (!q?.loaded || !q.nextCursor) return Promise.resolve()
  const { qid } = q
  const book = bookOf(c, qid)
  if (book.more) return Promise.resolve()
  book.more = true
  commit(c, key, qid, (held) => ({ ...held, loading: true }), [])
  return c.queues[kind].queue(async () => {
    const held = c.get().lists[key]
    const workspaceId = c.get().workspaceId
    let read: Read | null = null
    try {
      if (held?.qid === qid && held.nextCursor && workspaceId)
        read = await readPage(c, held, workspaceId, held.nextCursor, PAGE)
    } catch (err) {
      book.more = false
      commit(c, key, qid, (h) => ({ ...h, loading: false, error: asClientError(err).message }), [])
      return
    }
    book.more = false
    if (!read) {
      commit(c, key, qid, (h) => ({ ...h, loading: false }), [])
      return
    }
    const page = read.page
    commit(c, key, qid, (h) => withNextPage(h, page), [read])
    if (read.kind === 'reports') await c.get().needTasks(read.page.items.map((r) => r.taskId))
  })
}

export const createListsSlice: SliceCreator<ListsSlice> = (set, get, api) => {
  const c = listReads(set, get, api)
  let lastQid = 0
  const applied: string[] = []

  return {
    ...emptyListsData,
    needTasks: taskNeeds(c),
    showList: (kind, filter) => showList(c, () => ++lastQid, kind, filter),
    loadMore: (kind, filter) => loadMore(c, kind, filter),

    invalidateLists(kinds = ['tasks', 'reports']) {
      if (!get().workspaceId) return Promise.resolve()
      for (const q of Object.values(get().lists)) if (kinds.includes(q.kind)) bookOf(c, q.qid).stale = true
      return Promise.all(kinds.map((kind) => refreshKind(c, kind))).then(() => undefined)
    },

    applyTask(t: Task) {
      const s = get()
      if (t.workspaceId !== s.workspaceId) return
      // An older version changes nothing, nor the same row again (an action's answer, then its event); the same version
      // may still bring news (a task's branch head moves without a new version).
      const tasks = c.rows.merge(s.tasks, [t], c.rows.next())
      if (tasks === s.tasks) return
      set({ tasks })
      void get().invalidateLists(['tasks'])
    },

    applyReport(r: Report) {
      if (r.workspaceId !== get().workspaceId) return
      set((st) => ({ reports: c.rows.merge(st.reports, [r], c.rows.next()) }))
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
