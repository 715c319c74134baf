/**
 * The renderer's list query cache (issue 23): a list is a query keyed by (kind, filter) holding the server's ids,
 * totals and cursor; events invalidate it and its read of the server decides; a burst shares one refetch; an older
 * answer never wins over a newer one; a workspace switch drops the old workspace's answers.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, MethodName } from '../../shared/contract'
import type { Decision, Report, Task } from '../../shared/schemas'
import type { ClientApi, ConnectionState } from '../../renderer/src/api/bridge-client'
import type { CompactImpact, ReportFilter, TaskFilter } from '../../renderer/src/api/pages'
import { zeroCounts } from '../../electron/main/harness/decisions/impact'
import { createAppStore } from '../../renderer/src/stores/app-store'
import { connectEvents } from '../../renderer/src/stores/events'
import { filterKey, queryKey } from '../../renderer/src/stores/list-query'
import type { AppStore } from '../../renderer/src/stores/types'

const WS = 'w00000001'
const WS2 = 'w00000002'
const D1 = `${WS}-d1`
const decision = (version: number): Decision => ({
  id: D1,
  workspaceId: WS,
  key: 'D-1',
  title: 'Timeout',
  statement: `v${version}`,
  rationale: '',
  status: 'accepted',
  version,
  fingerprint: `f${version}`,
  sourceMessageId: null,
  supersedes: null,
  supersededBy: null,
  createdBy: null,
  createdAt: '',
  updatedAt: '',
})
const task = (n: number, extra: Partial<Task> = {}, ws = WS): Task => ({
  id: `${ws}-t${n}`,
  workspaceId: ws,
  key: `T-${n}`,
  title: `Task ${n}`,
  spec: '',
  acceptanceCriteria: '',
  status: 'todo',
  assigneeId: null,
  flag: null,
  flagged: false,
  artifact: null,
  links: [{ decisionId: D1, decisionKey: 'D-1', pinnedVersion: 1, currentVersion: 1, state: 'current' }],
  blockedBy: [],
  requiredReports: [],
  readiness: { ready: false, reasons: [], deliverOn: null },
  branch: null,
  head: null,
  merged: null,
  version: 1,
  createdAt: '',
  updatedAt: '',
  ...extra,
})
const report = (n: number, extra: Partial<Report> = {}): Report => ({
  id: `${WS}-r${n}`,
  key: `R-${n}`,
  workspaceId: WS,
  taskId: `${WS}-t1`,
  authorId: null,
  kind: 'test',
  verdict: 'pass',
  summary: '',
  validity: 'valid',
  basis: [{ decisionId: D1, version: 1, state: 'current' }],
  artifact: { commit: 'a'.repeat(40), digest: null },
  claims: [{ id: `${WS}-c${n}`, text: 'holds', decisionIds: [D1], state: 'valid', verdict: 'pass' }],
  createdAt: '',
  supersededBy: null,
  ...extra,
})
const stale = (r: Report): Report => ({
  ...r,
  validity: 'stale',
  basis: r.basis.map((b) => ({ ...b, state: 'suspect' })),
  claims: r.claims.map((c) => ({ ...c, state: 'stale' })),
})

/** The fake server's filters: what the core decides. The store under test never applies them itself. */
function taskMatches(f: TaskFilter, t: Task): boolean {
  if (f.status && !f.status.includes(t.status)) return false
  if (f.assigneeId !== undefined && t.assigneeId !== f.assigneeId) return false
  if (f.flagged !== undefined && t.flagged !== f.flagged) return false
  return f.decisionId === undefined || t.links.some((l) => l.decisionId === f.decisionId)
}
function reportMatches(f: ReportFilter, r: Report): boolean {
  if (f.taskId !== undefined && r.taskId !== f.taskId) return false
  if (f.kind !== undefined && r.kind !== f.kind) return false
  return f.stale === undefined || (r.validity === 'stale') === f.stale
}

interface Call {
  method: string
  params: Record<string, unknown>
}

/**
 * A server of rows held in memory that pages and filters like the core (key order, cursor = last key number). Each
 * answer is computed when the call is made (what the server read then); with `hold` on (or true for the call), it is
 * delivered only when the test releases it, in any order.
 */
function rowServer(tasks: Task[], reports: Report[]) {
  const calls: Call[] = []
  const held: { call: Call; deliver(): void }[] = []
  const listeners = new Set<(e: EventEnvelope) => void>()
  /** Which calls wait for release (none by default). */
  const state = { hold: false as boolean | ((c: Call) => boolean) }
  const num = (k: string) => Number(k.split('-')[1])
  const page = <T extends { key: string }>(rows: T[], p: Record<string, unknown>, desc: boolean) => {
    const sorted = [...rows].sort((a, b) => (desc ? num(b.key) - num(a.key) : num(a.key) - num(b.key)))
    const from = p.cursor
      ? sorted.findIndex((r) => (desc ? num(r.key) < Number(p.cursor) : num(r.key) > Number(p.cursor)))
      : 0
    const limit = (p.limit as number | undefined) ?? 100
    const items = from < 0 ? [] : sorted.slice(from, from + limit)
    const more = from >= 0 && from + limit < sorted.length
    return { items, nextCursor: more ? String(num(items[items.length - 1]!.key)) : null, total: rows.length }
  }
  const answers: Record<string, (p: Record<string, unknown>) => unknown> = {
    'workspaces.list': () => [
      { id: WS, name: 'r', repoPath: '/r', createdAt: '' },
      { id: WS2, name: 's', repoPath: '/s', createdAt: '' },
    ],
    'members.list': () => [],
    'decisions.list': (p) => (p.workspaceId === WS ? [decision(1)] : []),
    'proposals.list': () => [],
    'metrics.get': () => null,
    'sessions.list': () => [],
    'workspaces.settings': () => null,
    'tasks.page': (p) =>
      page(
        tasks.filter((t) => t.workspaceId === p.workspaceId && taskMatches(p as TaskFilter, t)),
        p,
        false,
      ),
    'reports.page': (p) => {
      const rows = reports.filter((r) => r.workspaceId === p.workspaceId && reportMatches(p as ReportFilter, r))
      const all = reports.filter(
        (r) => r.workspaceId === p.workspaceId && reportMatches({ ...(p as ReportFilter), stale: undefined }, r),
      )
      return {
        ...page(rows, p, true),
        staleTotal: all.filter((r) => r.validity === 'stale').length,
        attentionTotal: all.filter((r) => r.validity === 'stale' && !r.supersededBy).length,
      }
    },
    'tasks.getMany': (p) => tasks.filter((t) => (p.ids as string[]).includes(t.id)),
    'reports.getMany': (p) => reports.filter((r) => (p.ids as string[]).includes(r.id)),
  }
  const api: ClientApi = {
    call: (async (method: MethodName, params: Record<string, unknown>) => {
      const call = { method, params }
      calls.push(call)
      const answer = answers[method]
      if (!answer) throw Object.assign(new Error(`no answer for ${method}`), { code: 'internal' })
      // A copy, as the wire would give: later changes to the server's rows are not in this answer.
      const value = structuredClone(answer(params))
      if (!(typeof state.hold === 'function' ? state.hold(call) : state.hold)) return value
      return new Promise((resolve) => held.push({ call, deliver: () => resolve(value) }))
    }) as unknown as ClientApi['call'],
    onEvent: (l) => (listeners.add(l), () => listeners.delete(l)),
    onConnection: (l: (s: ConnectionState) => void) => (l('open'), () => {}),
    close: () => {},
  }
  const emit = (event: string, payload: unknown) => listeners.forEach((l) => l({ event, payload } as EventEnvelope))
  /** Delivers the held answers that match, in the order given (all when no test). */
  const release = (which: (c: Call) => boolean = () => true) => {
    for (const h of held.filter((x) => which(x.call))) {
      held.splice(held.indexOf(h), 1)
      h.deliver()
    }
  }
  return { api, calls, emit, tasks, reports, state, held, release }
}

async function opened(tasks: Task[], reports: Report[]) {
  const server = rowServer(tasks, reports)
  const store = createAppStore(server.api)
  await store.getState().selectWorkspace(WS)
  connectEvents(store, { request: () => 0, cancel: () => {} }, () => {})
  return { store, ...server }
}

/** Every pending promise callback run, and the calls they made answered (the fake server answers at once). */
const settled = () => new Promise((r) => setTimeout(r, 0))

const keysOf = (store: AppStore, kind: 'tasks' | 'reports', f: TaskFilter | ReportFilter) =>
  (store.getState().lists[queryKey(kind, f)]?.ids ?? []).map((id) =>
    kind === 'tasks' ? store.getState().tasks[id]!.key : store.getState().reports[id]!.key,
  )
const listOf = (store: AppStore, kind: 'tasks' | 'reports', f: TaskFilter | ReportFilter) =>
  store.getState().lists[queryKey(kind, f)]!
const pageCalls = (calls: Call[], method: 'tasks.page' | 'reports.page') =>
  calls.filter((c) => c.method === method && c.params.limit !== 1)

const edited = (version: number, impact: Partial<CompactImpact> = {}) => ({
  workspaceId: WS,
  decision: decision(version),
  impact: {
    decisionId: D1,
    version,
    normative: true,
    truncated: false,
    counts: zeroCounts(),
    tasks: [],
    reports: [],
    notifiedMemberIds: [],
    ...impact,
  },
  editorial: false,
  reason: '',
  actorId: null,
})

/** Every source file of the renderer. */
function rendererSources(dir = join(import.meta.dirname, '..', '..', 'renderer', 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? rendererSources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  )
}

describe('list rules', () => {
  it('no renderer path reads a whole task or report list (pages and ids only)', () => {
    const files = rendererSources()
    expect(files.length).toBeGreaterThan(20)
    const offenders = files.filter((f) => /['"](tasks|reports)\.list['"]/.test(readFileSync(f, 'utf8')))
    expect(offenders).toEqual([])
  })

  it('names a filter the same whatever the key or status order', () => {
    expect(filterKey({ status: ['todo', 'blocked'], flagged: true })).toBe(
      filterKey({ flagged: true, status: ['blocked', 'todo'], assigneeId: undefined }),
    )
    expect(filterKey({ flagged: true })).not.toBe(filterKey({ flagged: false }))
    expect(queryKey('tasks', {})).not.toBe(queryKey('reports', {}))
  })
})

describe('list queries', () => {
  it('opens a workspace without any list read, then loads a shown list page by page', async () => {
    const { store, calls } = await opened(
      Array.from({ length: 250 }, (_, i) => task(i + 1)),
      [],
    )
    expect(pageCalls(calls, 'tasks.page')).toEqual([])
    store.getState().showList('tasks', {})
    store.getState().showList('tasks', {}) // a second view of the same list asks nothing more
    await settled()
    expect(listOf(store, 'tasks', {})).toMatchObject({ total: 250, nextCursor: '100', loaded: true, loading: false })
    await store.getState().loadMore('tasks', {})
    await store.getState().loadMore('tasks', {})
    expect(keysOf(store, 'tasks', {})).toHaveLength(250)
    expect(keysOf(store, 'tasks', {}).slice(98, 102)).toEqual(['T-99', 'T-100', 'T-101', 'T-102'])
    expect(listOf(store, 'tasks', {}).nextCursor).toBeNull()
    expect(pageCalls(calls, 'tasks.page').map((c) => c.params.cursor ?? null)).toEqual([null, '100', '200'])
  })

  it('an event invalidates the shown lists, and their reads of the server decide membership, order, totals', async () => {
    const { store, calls, emit, tasks } = await opened([task(1), task(2, { status: 'in_progress' }), task(3)], [])
    const todo: TaskFilter = { status: ['todo'] }
    const doing: TaskFilter = { status: ['in_progress'] }
    const flagged: TaskFilter = { flagged: true }
    for (const f of [todo, doing, flagged]) store.getState().showList('tasks', f)
    await settled()
    const before = pageCalls(calls, 'tasks.page').length
    // The server moved T-3 and flagged T-1 (the core's rule; the event carries T-3 only).
    tasks[2] = task(3, { status: 'in_progress', version: 2 })
    tasks[0] = task(1, { flagged: true, version: 2 })
    emit('task.changed', { workspaceId: WS, task: tasks[2] })
    // The row the event carries is the server's: cached at once.
    expect(store.getState().tasks[`${WS}-t3`]!.status).toBe('in_progress')
    await settled()
    expect(keysOf(store, 'tasks', todo)).toEqual(['T-1'])
    expect(keysOf(store, 'tasks', doing)).toEqual(['T-2', 'T-3'])
    expect(keysOf(store, 'tasks', flagged)).toEqual(['T-1'])
    expect(listOf(store, 'tasks', doing).total).toBe(2)
    expect(store.getState().tasks[`${WS}-t1`]!.flagged).toBe(true)
    // One read per shown list, and the tab count read again.
    expect(pageCalls(calls, 'tasks.page').length - before).toBe(3)
    expect(store.getState().counts.flaggedTasks).toBe(1)
  })

  it('after a decision edit, reports and totals are what the server read, not what the impact lists', async () => {
    const reports = Array.from({ length: 150 }, (_, i) => report(i + 1))
    const { store, calls, emit } = await opened([task(1)], reports)
    store.getState().showList('reports', {})
    await settled()
    const before = calls.length
    // The server made every other report stale; the (cut) impact names only R-1.
    for (let i = 0; i < reports.length; i += 2) reports[i] = stale(reports[i]!)
    emit(
      'decision.changed',
      edited(2, {
        truncated: true,
        reports: [
          {
            reportId: `${WS}-r1`,
            key: 'R-1',
            taskId: `${WS}-t1`,
            authorId: null,
            staleClaimIds: [`${WS}-c1`],
            restoredClaimIds: [],
            validity: 'stale',
          },
        ],
      }),
    )
    expect(store.getState().decisions[D1]!.version).toBe(2)
    await settled()
    const list = listOf(store, 'reports', {})
    expect(list).toMatchObject({ total: 150, staleTotal: 75, attentionTotal: 75 })
    expect(keysOf(store, 'reports', {}).slice(0, 3)).toEqual(['R-150', 'R-149', 'R-148'])
    expect(store.getState().reports[`${WS}-r149`]!.validity).toBe('stale')
    expect(store.getState().reports[`${WS}-r150`]!.validity).toBe('valid')
    expect(store.getState().counts.staleReports).toBe(75)
    // The loaded range (one page) read again, nothing beyond it, nothing by id.
    const after = calls.slice(before)
    expect(pageCalls(after, 'reports.page').map((c) => [c.params.cursor ?? null, c.params.limit])).toEqual([
      [null, 100],
    ])
    expect(after.filter((c) => c.method.endsWith('.getMany') || c.method.endsWith('.list'))).toEqual([])
    // The list's page carries the tab's count: no read of its own for it.
    expect(after.filter((c) => c.method === 'reports.page' && c.params.limit === 1)).toEqual([])
  })

  it('takes a task event of the same version that brings news (a branch head), and ignores the same row again', async () => {
    const { store, calls, emit, tasks } = await opened([task(1, { status: 'in_progress' })], [])
    store.getState().showList('tasks', {})
    await settled()
    const reads = () => pageCalls(calls, 'tasks.page').length
    const before = reads()
    // The task's tree committed: its head moves, its version does not.
    tasks[0] = task(1, { status: 'in_progress', branch: 'concord/T-1', head: 'b'.repeat(40) })
    emit('task.changed', { workspaceId: WS, task: tasks[0] })
    expect(store.getState().tasks[`${WS}-t1`]!.head).toBe('b'.repeat(40))
    await settled()
    expect(reads()).toBe(before + 1)
    // An action's answer, then its event: the same row twice, one read.
    tasks[0] = task(1, { status: 'delivered', version: 2, branch: 'concord/T-1', head: 'b'.repeat(40) })
    store.getState().applyTask(tasks[0])
    emit('task.changed', { workspaceId: WS, task: structuredClone(tasks[0]) })
    await settled()
    expect(reads()).toBe(before + 2)
    // An older version arriving late changes nothing.
    emit('task.changed', { workspaceId: WS, task: task(1, { status: 'in_progress' }) })
    await settled()
    expect(store.getState().tasks[`${WS}-t1`]!.status).toBe('delivered')
    expect(reads()).toBe(before + 2)
  })

  it('caches a submitted report at once, reads the report lists again and fetches its task by id', async () => {
    const { store, calls, emit, reports } = await opened([task(1), task(2)], [report(1)])
    store.getState().showList('reports', {})
    await settled()
    const before = calls.length
    // R-2 supersedes R-1 (same task, kind and author): the server's rows say so, the event carries R-2 only.
    reports[0] = stale({ ...report(1), supersededBy: `${WS}-r2` })
    reports.push(stale(report(2, { taskId: `${WS}-t2` })))
    emit('report.submitted', { workspaceId: WS, report: reports[1] })
    expect(store.getState().reports[`${WS}-r2`]!.key).toBe('R-2')
    await settled()
    expect(keysOf(store, 'reports', {})).toEqual(['R-2', 'R-1'])
    expect(store.getState().reports[`${WS}-r1`]!.supersededBy).toBe(`${WS}-r2`)
    expect(listOf(store, 'reports', {})).toMatchObject({ total: 2, staleTotal: 2, attentionTotal: 1 })
    expect(store.getState().counts.staleReports).toBe(1)
    expect(store.getState().tasks[`${WS}-t2`]!.key).toBe('T-2')
    const after = calls.slice(before)
    expect(pageCalls(after, 'reports.page')).toHaveLength(1)
    expect(after.filter((c) => c.method === 'tasks.getMany').map((c) => c.params.ids)).toEqual([[`${WS}-t2`]])
  })

  it('reads a list shown beyond its first page again as far as it was loaded', async () => {
    const reports = Array.from({ length: 700 }, (_, i) => report(i + 1))
    const { store, calls } = await opened([task(1)], reports)
    store.getState().showList('reports', {})
    await settled()
    for (let i = 0; i < 6; i++) await store.getState().loadMore('reports', {})
    expect(keysOf(store, 'reports', {})).toHaveLength(700)
    const before = calls.length
    reports.push(report(701))
    await store.getState().invalidateLists(['reports'])
    // 700 rows and one more on top: read again in reads of at most 500, in the server's order.
    expect(
      pageCalls(calls.slice(before), 'reports.page').map((c) => [c.params.cursor ?? null, c.params.limit]),
    ).toEqual([
      [null, 500],
      ['202', 200],
    ])
    expect(keysOf(store, 'reports', {})).toHaveLength(700)
    expect(keysOf(store, 'reports', {})[0]).toBe('R-701')
    expect(listOf(store, 'reports', {})).toMatchObject({ total: 701, nextCursor: '2' })
  })

  it('reads a list that is not shown only when it is shown again', async () => {
    const { store, calls, tasks } = await opened([task(1), task(2)], [])
    const unshow = store.getState().showList('tasks', {})
    await settled()
    unshow()
    const before = pageCalls(calls, 'tasks.page').length
    tasks[1] = task(2, { status: 'cancelled', version: 2 })
    tasks.push(task(3))
    await store.getState().invalidateLists(['tasks'])
    expect(pageCalls(calls, 'tasks.page').length).toBe(before)
    store.getState().showList('tasks', {})
    await settled()
    expect(pageCalls(calls, 'tasks.page').length).toBe(before + 1)
    expect(keysOf(store, 'tasks', {})).toEqual(['T-1', 'T-2', 'T-3'])
    // Shown again while not invalidated since: nothing read.
    store.getState().showList('tasks', {})
    await settled()
    expect(pageCalls(calls, 'tasks.page').length).toBe(before + 1)
  })

  it('a burst of events shares one refetch per list: one read in flight, one more after it', async () => {
    const { store, calls, emit, tasks, state, release } = await opened([task(1), task(2)], [])
    store.getState().showList('tasks', {})
    await settled()
    const before = pageCalls(calls, 'tasks.page').length
    const countsBefore = calls.filter((c) => c.method === 'tasks.page' && c.params.limit === 1).length
    state.hold = true
    emit('task.changed', { workspaceId: WS, task: (tasks[0] = task(1, { version: 2, title: 'a' })) })
    await settled()
    expect(pageCalls(calls, 'tasks.page').length - before).toBe(1) // reading
    // Ten more changes while that read is unanswered: it may predate them, so one more read, shared.
    for (let v = 3; v <= 12; v++) emit('task.changed', { workspaceId: WS, task: (tasks[0] = task(1, { version: v })) })
    await settled()
    expect(pageCalls(calls, 'tasks.page').length - before).toBe(1) // still one in flight
    release()
    await settled()
    expect(pageCalls(calls, 'tasks.page').length - before).toBe(2)
    release()
    await settled()
    expect(pageCalls(calls, 'tasks.page').length - before).toBe(2)
    expect(store.getState().tasks[`${WS}-t1`]!.version).toBe(12)
    // The flagged count: the same, one read and one follow-up.
    expect(calls.filter((c) => c.method === 'tasks.page' && c.params.limit === 1).length - countsBefore).toBe(2)
  })

  it('applies an edit once when both its answer and its event arrive', async () => {
    const { store, calls, emit, state, release } = await opened([task(1)], [report(1)])
    store.getState().showList('tasks', {})
    store.getState().showList('reports', {})
    await settled()
    const before = calls.length
    const edit = edited(2)
    // The editor applies its HTTP answer; the event of the same edit arrives while the reads it started are unanswered.
    state.hold = true
    const answer = store.getState().applyDecisionChange(edit.decision, edit.impact)
    await settled()
    emit('decision.changed', edit)
    state.hold = false
    release()
    await answer
    await settled()
    expect(pageCalls(calls.slice(before), 'tasks.page')).toHaveLength(1)
    expect(pageCalls(calls.slice(before), 'reports.page')).toHaveLength(1)
    // The next version of the same decision is a new edit.
    await store.getState().applyDecisionChange(decision(3), { ...edit.impact, version: 3 })
    expect(pageCalls(calls.slice(before), 'tasks.page')).toHaveLength(2)
  })

  it('an answer read before a newer one never replaces it: rows by read order, tasks by version', async () => {
    const { store, emit, tasks, state, release } = await opened(
      [task(1), task(2, { status: 'cancelled' })],
      [report(1, { taskId: `${WS}-t2` })],
    )
    const isPage = (c: Call) => c.method === 'tasks.page'
    state.hold = true
    // The report's task is read by id (tasks.getMany) after its page: T-2 as the server had it then, not flagged.
    store.getState().showList('reports', {})
    await settled()
    release((c) => c.method === 'reports.page')
    await settled()
    expect(store.getState().tasks[`${WS}-t2`]).toBeUndefined()
    // The core flags T-2 (a link of a cancelled task turned suspect: same version); the board's read sees it.
    tasks[1] = task(2, { status: 'cancelled', flagged: true })
    store.getState().showList('tasks', {})
    await settled()
    release(isPage)
    await settled()
    expect(store.getState().tasks[`${WS}-t2`]!.flagged).toBe(true)
    // The read by id, older, is answered last: T-2 stays as the newer read saw it.
    release()
    await settled()
    expect(store.getState().tasks[`${WS}-t2`]!.flagged).toBe(true)
    // A page read before a task.changed event, answered after it, does not put the older version back.
    void store.getState().invalidateLists(['tasks'])
    await settled()
    tasks[0] = task(1, { status: 'in_progress', version: 2 })
    emit('task.changed', { workspaceId: WS, task: tasks[0] })
    release()
    await settled()
    expect(store.getState().tasks[`${WS}-t1`]).toMatchObject({ version: 2, status: 'in_progress' })
    // A read that began before an event but saw a later version (the server changed the task again) wins over it.
    release()
    await settled()
    tasks[0] = task(1, { status: 'delivered', version: 4 })
    void store.getState().invalidateLists(['tasks'])
    await settled()
    emit('task.changed', { workspaceId: WS, task: task(1, { status: 'in_progress', version: 3 }) })
    release()
    await settled()
    expect(store.getState().tasks[`${WS}-t1`]).toMatchObject({ version: 4, status: 'delivered' })
    state.hold = false
    release()
  })

  it('a workspace switch drops the answers of the old workspace, even when it comes back to it', async () => {
    const other = stale(report(1, { id: `${WS2}-r1`, workspaceId: WS2, taskId: `${WS2}-t2` }))
    const { store, calls, tasks, state, held, release } = await opened([task(1), task(2, {}, WS2)], [other])
    state.hold = (c) => c.method.endsWith('.page')
    store.getState().showList('tasks', {})
    await settled()
    // Its first page is unanswered when the user opens the other workspace and comes back.
    const [heldRead] = pageCalls(calls, 'tasks.page')
    expect(heldRead!.params.workspaceId).toBe(WS)
    await store.getState().selectWorkspace(WS2)
    await store.getState().selectWorkspace(WS)
    tasks[0] = task(1, { title: 'Renamed', version: 2 })
    store.getState().showList('tasks', {})
    await settled()
    // The reads of the first visit (its list and its tab count; every later read waits behind them) are answered
    // now: dropped. Only this visit's read fills the list.
    expect(held.filter((h) => h.call.method === 'tasks.page').map((h) => h.call.params.workspaceId)).toEqual([WS, WS])
    release()
    await settled()
    expect(store.getState().counts.staleReports).toBeNull() // the other workspace's count (1), dropped
    expect(store.getState().lists[queryKey('tasks', {})]!.loaded).toBe(false)
    expect(store.getState().tasks[`${WS}-t1`]).toBeUndefined()
    state.hold = false
    for (let i = 0; i < 4; i++) {
      release()
      await settled()
    }
    expect(keysOf(store, 'tasks', {})).toEqual(['T-1'])
    expect(store.getState().tasks[`${WS}-t1`]!.title).toBe('Renamed')
    // The other workspace's reads, made while it was open, never reached this one's lists or rows.
    expect(Object.keys(store.getState().tasks)).toEqual([`${WS}-t1`])
  })

  it('recounts the tab counts once more when invalidated during a recount (its read may predate it)', async () => {
    const { store, calls, reports, state, release } = await opened([], [stale(report(1))])
    await settled()
    expect(store.getState().counts.staleReports).toBe(1)
    state.hold = true
    const first = store.getState().invalidateLists(['reports'])
    await settled() // reads now: one stale report
    reports[0] = report(1) // the change lands after that read
    const second = store.getState().invalidateLists(['reports'])
    const third = store.getState().invalidateLists(['reports']) // a burst shares the one follow-up
    release()
    await first
    expect(store.getState().counts.staleReports).toBe(1)
    await settled()
    release()
    await Promise.all([second, third])
    expect(store.getState().counts.staleReports).toBe(0)
    expect(calls.filter((c) => c.method === 'reports.page' && c.params.limit === 1)).toHaveLength(3) // open, 2 here
  })

  it('fetches tasks asked for by id in one call per tick, only those not cached', async () => {
    const { store, calls } = await opened([task(1), task(2), task(3)], [report(1, { taskId: `${WS}-t3` })])
    store.getState().showList('reports', {})
    await settled()
    // The report's task came with its page, in one call.
    expect(store.getState().tasks[`${WS}-t3`]?.key).toBe('T-3')
    const before = calls.length
    await Promise.all([
      store.getState().needTasks([`${WS}-t1`, `${WS}-t3`]),
      store.getState().needTasks([`${WS}-t2`, `${WS}-t1`]),
    ])
    const asked = calls.slice(before).filter((c) => c.method === 'tasks.getMany')
    expect(asked.map((c) => c.params.ids)).toEqual([[`${WS}-t1`, `${WS}-t2`]])
    expect(Object.keys(store.getState().tasks).sort()).toEqual([`${WS}-t1`, `${WS}-t2`, `${WS}-t3`])
  })

  it('after a reconnect reads each shown list again as far as it was loaded', async () => {
    const { store, calls } = await opened(
      Array.from({ length: 150 }, (_, i) => task(i + 1)),
      [],
    )
    store.getState().showList('tasks', {})
    await settled()
    await store.getState().loadMore('tasks', {})
    const before = calls.length
    await store.getState().resync()
    await settled()
    expect(pageCalls(calls.slice(before), 'tasks.page').map((c) => [c.params.cursor ?? null, c.params.limit])).toEqual([
      [null, 150],
    ])
    expect(keysOf(store, 'tasks', {})).toHaveLength(150)
  })
})
