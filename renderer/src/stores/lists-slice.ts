/**
 * Paged lists over the task and report caches (issue 12). Each view names a filter; its first page loads
 * when the view first asks, later pages on demand, and events move rows in and out without reloading.
 * The caches (`tasks`, `reports`) hold every row any view loaded; lists hold ids in the server's order.
 */
import type { Decision, Report, Task } from '../../../shared/schemas'
import { asClientError } from '../api/errors'
import {
  getReports,
  getTasks,
  pageReports,
  pageTasks,
  type CompactImpact,
  type ReportFilter,
  type TaskFilter,
} from '../api/pages'
import { patchReport, patchTask, staleFromNormativeEdit } from './impact-patch'
import {
  filterKey,
  placeRow,
  reportMatches,
  reportOrder,
  taskMatches,
  taskOrder,
  type ListState,
  type ReportListState,
} from './list-logic'
import type { AppState, ListsSlice, SliceCreator } from './types'

export const TASK_PAGE = 100
export const REPORT_PAGE = 100
/** How many applied edits are remembered for dedupe (an answer and its event arrive within moments). */
const REMEMBERED = 200

export const emptyListsData = {
  taskLists: {},
  reportLists: {},
  counts: { flaggedTasks: null, staleReports: null },
} satisfies Partial<AppState>

const emptyList = <F>(filter: F): ListState<F> => ({
  filter,
  ids: [],
  total: 0,
  nextCursor: null,
  loaded: false,
  loading: true,
  error: null,
})

/** Merges fetched rows into a cache, keeping a row an event already replaced with a later version. */
function mergeTasks(cache: Record<string, Task>, rows: Task[]): Record<string, Task> {
  const out = { ...cache }
  for (const t of rows) if ((out[t.id]?.version ?? 0) <= t.version) out[t.id] = t
  return out
}
function mergeReports(cache: Record<string, Report>, rows: Report[]): Record<string, Report> {
  const out = { ...cache }
  for (const r of rows) out[r.id] = r
  return out
}

/** The store's part of moving one changed task between loaded lists. */
export function moveTask(
  s: AppState,
  prev: Task | undefined,
  t: Task,
): { taskLists: AppState['taskLists']; uncertain: boolean } {
  let uncertain = false
  const taskLists = { ...s.taskLists }
  const keyOf = (id: string) => (id === t.id ? t.key : s.tasks[id]?.key)
  for (const [k, list] of Object.entries(s.taskLists)) {
    const r = placeRow(
      list,
      t,
      taskMatches(list.filter, t),
      prev ? taskMatches(list.filter, prev) : null,
      keyOf,
      taskOrder,
    )
    taskLists[k] = r.list
    uncertain ||= r.uncertain
  }
  return { taskLists, uncertain }
}

export function moveReport(
  s: AppState,
  prev: Report | undefined,
  r: Report,
  isNew: boolean,
): { reportLists: AppState['reportLists']; uncertain: boolean } {
  let uncertain = false
  const reportLists = { ...s.reportLists }
  const keyOf = (id: string) => (id === r.id ? r.key : s.reports[id]?.key)
  for (const [k, list] of Object.entries(s.reportLists)) {
    const prevMatches = prev ? reportMatches(list.filter, prev) : isNew ? false : null
    const placed = placeRow(list, r, reportMatches(list.filter, r), prevMatches, keyOf, reportOrder)
    let next = placed.list
    const wasStale = prev ? prevMatches && prev.validity === 'stale' : isNew ? false : null
    const isStale = reportMatches(list.filter, r) && r.validity === 'stale'
    if (wasStale === null) uncertain = true
    else if (wasStale !== isStale && list.loaded)
      next = { ...next, staleTotal: Math.max(0, next.staleTotal + (isStale ? 1 : -1)) }
    reportLists[k] = next
    uncertain ||= placed.uncertain
  }
  return { reportLists, uncertain }
}

export const createListsSlice: SliceCreator<ListsSlice> = (set, get, api) => {
  const applied: string[] = []
  let countsAsked: Promise<void> | null = null
  /** The one recount after the one in flight, for events that arrived while it was reading. */
  let countsNext: Promise<void> | null = null

  /**
   * Asks for the totals of the loaded lists that are not whole (their rows cannot say) and for the tab counts;
   * resolves to the function that applies them, so a caller can apply rows it fetched meanwhile first.
   */
  const countTotals = async (): Promise<(() => void) | null> => {
    const workspaceId = get().workspaceId
    if (!workspaceId) return null
    const s = get()
    const tl = Object.entries(s.taskLists).filter(([, l]) => l.loaded && l.nextCursor !== null)
    const rl = Object.entries(s.reportLists).filter(([, l]) => l.loaded && l.nextCursor !== null)
    // The tab counts are the pages of {flagged} and {} (asked once when a loaded list has that filter).
    const flaggedKey = filterKey({ flagged: true })
    const allKey = filterKey({})
    const tasksAsked = tl.map(([, l]) => pageTasks(api, workspaceId, l.filter, null, 1))
    const reportsAsked = rl.map(([, l]) => pageReports(api, workspaceId, l.filter, null, 1))
    const fi = tl.findIndex(([k]) => k === flaggedKey)
    const ai = rl.findIndex(([k]) => k === allKey)
    const [tt, rr, flagged, all] = await Promise.all([
      Promise.all(tasksAsked),
      Promise.all(reportsAsked),
      tasksAsked[fi] ?? pageTasks(api, workspaceId, { flagged: true }, null, 1),
      reportsAsked[ai] ?? pageReports(api, workspaceId, {}, null, 1),
    ])
    return () => {
      if (get().workspaceId !== workspaceId) return
      set((st) => {
        const taskLists = { ...st.taskLists }
        // tt and rr hold one page per entry of tl and rl, in their order.
        tl.forEach(([k], i) => {
          const list = taskLists[k]
          const page = tt[i]
          if (list && page) taskLists[k] = { ...list, total: page.total }
        })
        const reportLists = { ...st.reportLists }
        rl.forEach(([k], i) => {
          const list = reportLists[k]
          const page = rr[i]
          if (list && page) reportLists[k] = { ...list, total: page.total, staleTotal: page.staleTotal }
        })
        return { taskLists, reportLists, counts: { flaggedTasks: flagged.total, staleReports: all.attentionTotal } }
      })
    }
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
      const rows = await getTasks(api, batch).catch(() => [])
      if (get().workspaceId === workspaceId) set((st) => ({ tasks: mergeTasks(st.tasks, rows) }))
    })
    return asking
  }

  const loadTasks = async (filter: TaskFilter, more: boolean) => {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const key = filterKey(filter)
    const held = get().taskLists[key]
    if (more ? !held?.loaded || held.loading || !held.nextCursor : held) return
    set((s) => ({ taskLists: { ...s.taskLists, [key]: held ? { ...held, loading: true } : emptyList(filter) } }))
    try {
      const page = await pageTasks(api, workspaceId, filter, more ? (held?.nextCursor ?? null) : null, TASK_PAGE)
      if (get().workspaceId !== workspaceId) return
      set((s) => {
        const base = s.taskLists[key] ?? emptyList(filter)
        const ids = more
          ? [...base.ids, ...page.items.map((t) => t.id).filter((id) => !base.ids.includes(id))]
          : page.items.map((t) => t.id)
        return {
          tasks: mergeTasks(s.tasks, page.items),
          taskLists: {
            ...s.taskLists,
            [key]: {
              ...base,
              ids,
              total: page.total,
              nextCursor: page.nextCursor,
              loaded: true,
              loading: false,
              error: null,
            },
          },
        }
      })
    } catch (err) {
      if (get().workspaceId !== workspaceId) return
      set((s) => ({
        taskLists: {
          ...s.taskLists,
          [key]: { ...(s.taskLists[key] ?? emptyList(filter)), loading: false, error: asClientError(err).message },
        },
      }))
    }
  }

  const loadReports = async (filter: ReportFilter, more: boolean) => {
    const workspaceId = get().workspaceId
    if (!workspaceId) return
    const key = filterKey(filter)
    const held = get().reportLists[key]
    if (more ? !held?.loaded || held.loading || !held.nextCursor : held) return
    set((s) => ({
      reportLists: {
        ...s.reportLists,
        [key]: held ? { ...held, loading: true } : { ...emptyList(filter), staleTotal: 0 },
      },
    }))
    try {
      const page = await pageReports(api, workspaceId, filter, more ? (held?.nextCursor ?? null) : null, REPORT_PAGE)
      if (get().workspaceId !== workspaceId) return
      set((s) => {
        const base = s.reportLists[key] ?? { ...emptyList(filter), staleTotal: 0 }
        const ids = more
          ? [...base.ids, ...page.items.map((r) => r.id).filter((id) => !base.ids.includes(id))]
          : page.items.map((r) => r.id)
        const list: ReportListState = {
          ...base,
          ids,
          total: page.total,
          staleTotal: page.staleTotal,
          nextCursor: page.nextCursor,
          loaded: true,
          loading: false,
          error: null,
        }
        return { reports: mergeReports(s.reports, page.items), reportLists: { ...s.reportLists, [key]: list } }
      })
      // The cards show their task's key.
      await needTasks(page.items.map((r) => r.taskId))
    } catch (err) {
      if (get().workspaceId !== workspaceId) return
      set((s) => ({
        reportLists: {
          ...s.reportLists,
          [key]: {
            ...(s.reportLists[key] ?? { ...emptyList(filter), staleTotal: 0 }),
            loading: false,
            error: asClientError(err).message,
          },
        },
      }))
    }
  }

  return {
    ...emptyListsData,

    needTasks,
    ensureTaskList: (filter) => loadTasks(filter, false),
    loadMoreTasks: (filter) => loadTasks(filter, true),
    ensureReportList: (filter) => loadReports(filter, false),
    loadMoreReports: (filter) => loadReports(filter, true),

    refreshCounts() {
      // One recount in flight at a time. An event during it may have come after its read, so it asks for one
      // more once that recount ends; a burst of events shares that one.
      if (countsAsked)
        return (countsNext ??= countsAsked.then(() => {
          countsNext = null
          return get().refreshCounts()
        }))
      const workspaceId = get().workspaceId
      if (!workspaceId) return Promise.resolve()
      countsAsked = Promise.all([
        pageTasks(api, workspaceId, { flagged: true }, null, 1),
        pageReports(api, workspaceId, {}, null, 1),
      ])
        .then(([flagged, reports]) => {
          if (get().workspaceId === workspaceId)
            set({ counts: { flaggedTasks: flagged.total, staleReports: reports.attentionTotal } })
        })
        .catch(() => undefined)
        .finally(() => (countsAsked = null))
      return countsAsked
    },

    async applyDecisionChange(decision: Decision, impact: CompactImpact) {
      const mark = `${decision.id}@${impact.version ?? decision.version}`
      if (applied.includes(mark)) return
      applied.push(mark)
      if (applied.length > REMEMBERED) applied.shift()
      const s = get()
      if (decision.workspaceId !== s.workspaceId) return
      s.applyDecision(decision)

      // 1. Patch what is loaded, from the event alone: the panels are right before any fetch returns.
      // In one store update (one render), however many rows.
      const held = get()
      const taskPatches: Task[] = []
      const reportPatches: Report[] = []
      for (const it of impact.tasks) {
        const t = held.tasks[it.taskId]
        if (t) taskPatches.push(patchTask(t, it, decision, impact.normative))
      }
      for (const ir of impact.reports) {
        const r = held.reports[ir.reportId]
        if (r) reportPatches.push(patchReport(r, ir, decision))
      }
      // A cut impact does not list every loaded report it made stale (the panel shows the newest, the impact the
      // first by key): after a normative edit, what was current on the decision is stale, patched here alone.
      const listed = new Set(impact.reports.map((r) => r.reportId))
      const patched = new Set<string>()
      if (impact.truncated && impact.normative)
        for (const r of Object.values(held.reports)) {
          if (listed.has(r.id)) continue
          const p = staleFromNormativeEdit(r, decision)
          if (p) {
            reportPatches.push(p)
            patched.add(r.id)
          }
        }
      get().applyRows(taskPatches, reportPatches)

      // 2. Refetch the affected loaded rows in one batched call each (a truncated impact: every loaded row linking the
      // decision, except the reports patched exactly above).
      const st = get()
      const taskIds = new Set(impact.tasks.map((t) => t.taskId).filter((id) => st.tasks[id]))
      const reportIds = new Set(impact.reports.map((r) => r.reportId).filter((id) => st.reports[id]))
      if (impact.truncated) {
        for (const t of Object.values(st.tasks))
          if (t.links.some((l) => l.decisionId === decision.id)) taskIds.add(t.id)
        for (const r of Object.values(st.reports))
          if (
            !patched.has(r.id) &&
            (r.basis.some((b) => b.decisionId === decision.id) ||
              r.claims.some((c) => c.decisionIds.includes(decision.id)))
          )
            reportIds.add(r.id)
      }
      const workspaceId = st.workspaceId
      // Rows beyond what is loaded changed too: their lists' totals (and the tab counts) are recounted, at the same
      // time as the loaded rows are fetched (the counts do not wait for the rows).
      const beyond =
        impact.truncated ||
        impact.tasks.some((t) => !st.tasks[t.taskId]) ||
        impact.reports.some((r) => !st.reports[r.reportId])
      // The totals are shown as soon as they come (the loaded rows were patched to what the server counts); a
      // refetched row that still moves between lists or changes validity asks for a recount after.
      let counted = false
      const counting = beyond
        ? countTotals().then((apply) => {
            apply?.()
            counted = true
          })
        : null
      const [tasks, reports] = await Promise.all([
        taskIds.size ? getTasks(api, [...taskIds]) : [],
        reportIds.size ? getReports(api, [...reportIds]) : [],
      ])
      if (get().workspaceId !== workspaceId) return
      const cached = get()
      const moved =
        counted &&
        (tasks.some((t) => {
          const b = cached.tasks[t.id]
          return !!b && (b.flag !== t.flag || b.status !== t.status)
        }) ||
          reports.some((r) => {
            const b = cached.reports[r.id]
            return !!b && b.validity !== r.validity
          }))
      const uncertain = get().applyRows(tasks, reports)
      if (counting) {
        await counting
        if (moved || uncertain) await get().recountLists()
      } else if (uncertain) await get().recountLists()
      else await get().refreshCounts()
    },

    async recountLists() {
      ;(await countTotals())?.()
    },

    async refreshLists() {
      // After a reconnect: each loaded list's pages again, as many rows as it showed, in pages.
      const workspaceId = get().workspaceId
      if (!workspaceId) return
      const s = get()
      const reloadTasks = Object.entries(s.taskLists).map(async ([key, list]) => {
        const items: Task[] = []
        let cursor: string | null = null
        let total: number
        do {
          const page = await pageTasks(api, workspaceId, list.filter, cursor, TASK_PAGE)
          items.push(...page.items)
          cursor = page.nextCursor
          total = page.total
        } while (cursor && items.length < list.ids.length)
        return {
          key,
          list: {
            ...list,
            ids: items.map((t) => t.id),
            total,
            nextCursor: cursor,
            loaded: true,
            loading: false,
            error: null,
          },
          items,
        }
      })
      const reloadReports = Object.entries(s.reportLists).map(async ([key, list]) => {
        const items: Report[] = []
        let cursor: string | null = null
        let total: number
        let staleTotal: number
        do {
          const page = await pageReports(api, workspaceId, list.filter, cursor, REPORT_PAGE)
          items.push(...page.items)
          cursor = page.nextCursor
          total = page.total
          staleTotal = page.staleTotal
        } while (cursor && items.length < list.ids.length)
        return {
          key,
          list: {
            ...list,
            ids: items.map((r) => r.id),
            total,
            staleTotal,
            nextCursor: cursor,
            loaded: true,
            loading: false,
            error: null,
          },
          items,
        }
      })
      const [tasks, reports] = await Promise.all([
        Promise.all(reloadTasks),
        Promise.all(reloadReports),
        get().refreshCounts(),
      ])
      if (get().workspaceId !== workspaceId) return
      set((st) => ({
        tasks: mergeTasks(
          st.tasks,
          tasks.flatMap((t) => t.items),
        ),
        reports: mergeReports(
          st.reports,
          reports.flatMap((r) => r.items),
        ),
        taskLists: { ...st.taskLists, ...Object.fromEntries(tasks.map((t) => [t.key, t.list])) },
        reportLists: { ...st.reportLists, ...Object.fromEntries(reports.map((r) => [r.key, r.list])) },
      }))
    },
  }
}
