/**
 * The renderer's paged lists (issue 12): membership moves when a row changes, paging, patching from a
 * decision's impact, and the edit's answer and event applied once.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, MethodName } from '../../shared/contract'
import type { Decision, Report, Task } from '../../shared/schemas'
import type { ClientApi, ConnectionState } from '../../renderer/src/api/bridge-client'
import type { CompactImpact, ReportFilter, TaskFilter } from '../../renderer/src/api/pages'
import { createAppStore } from '../../renderer/src/stores/app-store'
import { connectEvents } from '../../renderer/src/stores/events'
import {
  filterKey,
  placeRow,
  reportMatches,
  reportOrder,
  taskMatches,
  taskOrder,
  type ListState,
} from '../../renderer/src/stores/list-logic'

const WS = 'w00000001'
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
const task = (n: number, extra: Partial<Task> = {}): Task => ({
  id: `${WS}-t${n}`,
  workspaceId: WS,
  key: `T-${n}`,
  title: `Task ${n}`,
  spec: '',
  acceptanceCriteria: '',
  status: 'todo',
  assigneeId: null,
  flag: null,
  artifact: null,
  links: [{ decisionId: D1, decisionKey: 'D-1', pinnedVersion: 1, currentVersion: 1, state: 'current' }],
  blockedBy: [],
  requiredReports: [],
  branch: null,
  head: null,
  merged: null,
  version: 1,
  createdAt: '',
  updatedAt: '',
  ...extra,
  // As the core decides it (store/task-rules-sql taskFlaggedSql), for the fixture's flag and links.
  flagged: extra.flagged ?? ((extra.flag ?? null) !== null || (extra.links ?? []).some((l) => l.state === 'suspect')),
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
  claims: [{ id: `${WS}-c${n}`, text: 'holds', decisionIds: [D1], state: 'valid' }],
  createdAt: '',
  supersededBy: null,
  ...extra,
})

/**
 * A server of rows held in memory that pages and filters like the core does (key order, cursor = last key
 * number); it stands in for the bridge so these tests count exactly which calls the store makes.
 */
function rowServer(tasks: Task[], reports: Report[]) {
  const calls: { method: string; params: Record<string, unknown> }[] = []
  const listeners = new Set<(e: EventEnvelope) => void>()
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
    'workspaces.list': () => [{ id: WS, name: 'r', repoPath: '/r', createdAt: '' }],
    'members.list': () => [],
    'decisions.list': () => [decision(1)],
    'proposals.list': () => [],
    'metrics.get': () => null,
    'sessions.list': () => [],
    'workspaces.settings': () => null,
    'tasks.page': (p) =>
      page(
        tasks.filter((t) => taskMatches(p as TaskFilter, t)),
        p,
        false,
      ),
    'reports.page': (p) => {
      const rows = reports.filter((r) => reportMatches(p as ReportFilter, r))
      return {
        ...page(rows, p, true),
        staleTotal: rows.filter((r) => r.validity === 'stale').length,
        attentionTotal: rows.filter((r) => r.validity === 'stale' && !r.supersededBy).length,
      }
    },
    'tasks.getMany': (p) => tasks.filter((t) => (p.ids as string[]).includes(t.id)),
    'reports.getMany': (p) => reports.filter((r) => (p.ids as string[]).includes(r.id)),
  }
  const api: ClientApi = {
    call: (async (method: MethodName, params: Record<string, unknown>) => {
      calls.push({ method, params })
      const answer = answers[method]
      if (!answer) throw Object.assign(new Error(`no answer for ${method}`), { code: 'internal' })
      return answer(params)
    }) as unknown as ClientApi['call'],
    onEvent: (l) => (listeners.add(l), () => listeners.delete(l)),
    onConnection: (l: (s: ConnectionState) => void) => (l('open'), () => {}),
    close: () => {},
  }
  const emit = (event: string, payload: unknown) => listeners.forEach((l) => l({ event, payload } as EventEnvelope))
  return { api, calls, emit, tasks, reports }
}

async function opened(tasks: Task[], reports: Report[]) {
  const server = rowServer(tasks, reports)
  const store = createAppStore(server.api)
  await store.getState().selectWorkspace(WS)
  return { store, ...server }
}

const impactOf = (extra: Partial<CompactImpact>): CompactImpact => ({
  decisionId: D1,
  version: 2,
  normative: true,
  truncated: false,
  counts: {
    tasks: 0,
    needsAdjustment: 0,
    needsReverification: 0,
    acceptanceRevoked: 0,
    reports: 0,
    staleClaims: 0,
    restoredClaims: 0,
  },
  tasks: [],
  reports: [],
  notifiedMemberIds: [],
  ...extra,
})
const whole = (c: { method: string; params: Record<string, unknown> }) =>
  c.method === 'tasks.list' ||
  c.method === 'reports.list' ||
  (c.method.endsWith('.page') && !c.params.cursor && c.params.limit !== 1)

/** Every source file of the renderer. */
function rendererSources(dir = join(import.meta.dirname, '..', '..', 'renderer', 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? rendererSources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  )
}

describe('the flagged filter', () => {
  it("takes the core's Task.flagged (a suspect link with no flag is flagged), not a rule of its own", () => {
    const suspect = task(1, {
      links: [{ decisionId: D1, decisionKey: 'D-1', pinnedVersion: 1, currentVersion: 2, state: 'suspect' }],
    })
    expect(suspect.flag).toBeNull()
    expect(taskMatches({ flagged: true }, suspect)).toBe(true)
    expect(taskMatches({ flagged: false }, suspect)).toBe(false)
    expect(taskMatches({ flagged: true }, task(2))).toBe(false)
  })
})

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
  })

  it('places a row inside the loaded range, counts it beyond, and asks for a recount when its past is unknown', () => {
    const keys: Record<string, string> = { a: 'T-2', b: 'T-5', c: 'T-9' }
    const list: ListState<TaskFilter> = {
      filter: {},
      ids: ['a', 'b', 'c'],
      total: 10,
      nextCursor: '9',
      loaded: true,
      loading: false,
      error: null,
    }
    const keyOf = (id: string) => keys[id] ?? (id === 'x' ? 'T-4' : 'T-20')
    expect(placeRow(list, { id: 'x', key: 'T-4' }, true, false, keyOf, taskOrder).list.ids).toEqual([
      'a',
      'x',
      'b',
      'c',
    ])
    expect(placeRow(list, { id: 'y', key: 'T-20' }, true, false, keyOf, taskOrder)).toMatchObject({
      list: { ids: ['a', 'b', 'c'], total: 11 },
      uncertain: false,
    })
    expect(placeRow(list, { id: 'y', key: 'T-20' }, true, null, keyOf, taskOrder)).toMatchObject({
      list: { total: 10 },
      uncertain: true,
    })
    expect(placeRow(list, { id: 'b', key: 'T-5' }, false, true, keyOf, taskOrder).list).toMatchObject({
      ids: ['a', 'c'],
      total: 9,
    })
    // Reports run newest first: a new report goes on top.
    const reports: ListState<ReportFilter> = {
      filter: {},
      ids: ['c', 'b'],
      total: 2,
      nextCursor: null,
      loaded: true,
      loading: false,
      error: null,
    }
    expect(
      placeRow(reports, { id: 'z', key: 'T-12' }, true, false, (id) => keys[id] ?? 'T-12', reportOrder).list.ids,
    ).toEqual(['z', 'c', 'b'])
  })
})

describe('paged lists in the store', () => {
  it('opens a workspace without any task or report read, then loads a list page by page', async () => {
    const tasks = Array.from({ length: 250 }, (_, i) => task(i + 1))
    const { store, calls } = await opened(tasks, [])
    expect(calls.filter((c) => c.method.startsWith('tasks.') && c.params.limit !== 1)).toEqual([])
    await store.getState().ensureTaskList({})
    await store.getState().ensureTaskList({}) // a second view of the same list asks nothing more
    const key = filterKey({})
    expect(store.getState().taskLists[key]).toMatchObject({ total: 250, nextCursor: '100' })
    await store.getState().loadMoreTasks({})
    await store.getState().loadMoreTasks({})
    const list = store.getState().taskLists[key]
    expect(list!.ids).toHaveLength(250)
    expect(list!.ids.map((id) => store.getState().tasks[id]!.key).slice(98, 102)).toEqual([
      'T-99',
      'T-100',
      'T-101',
      'T-102',
    ])
    expect(list!.nextCursor).toBeNull()
    expect(
      calls.filter((c) => c.method === 'tasks.page' && c.params.limit !== 1).map((c) => c.params.cursor ?? null),
    ).toEqual([null, '100', '200'])
  })

  it('moves a task whose status or flag changed between the lists it now matches', async () => {
    const { store, emit } = await opened([task(1), task(2, { status: 'in_progress' }), task(3)], [])
    connectEvents(store, { request: () => 0, cancel: () => {} }, () => {})
    await Promise.all([
      store.getState().ensureTaskList({ status: ['todo'] }),
      store.getState().ensureTaskList({ status: ['in_progress'] }),
      store.getState().ensureTaskList({ flagged: true }),
    ])
    const keys = (f: TaskFilter) =>
      store.getState().taskLists[filterKey(f)]!.ids.map((id) => store.getState().tasks[id]!.key)
    emit('task.changed', { workspaceId: WS, task: task(3, { status: 'in_progress', version: 2 }) })
    emit('task.changed', { workspaceId: WS, task: task(1, { flag: 'needs_adjustment', version: 2 }) })
    expect(keys({ status: ['todo'] })).toEqual(['T-1'])
    expect(keys({ status: ['in_progress'] })).toEqual(['T-2', 'T-3'])
    expect(keys({ flagged: true })).toEqual(['T-1'])
    expect(store.getState().taskLists[filterKey({ status: ['in_progress'] })]!.total).toBe(2)
    // An older version arriving late moves nothing back.
    emit('task.changed', { workspaceId: WS, task: task(3, { status: 'todo', version: 1 }) })
    expect(keys({ status: ['todo'] })).toEqual(['T-1'])
  })

  it('patches loaded rows from the impact, refetches them by id in one call each, and never reloads a list', async () => {
    // R-149 is stale on D-1 already (pinned to older content): an edit may restore it, so it is refetched.
    const stale149 = {
      validity: 'stale' as const,
      basis: [{ decisionId: D1, version: 1, state: 'suspect' as const }],
      claims: [{ ...report(149).claims[0]!, state: 'stale' as const }],
    }
    const reports = Array.from({ length: 150 }, (_, i) => report(i + 1, i === 148 ? stale149 : {}))
    const { store, calls, emit, tasks } = await opened([task(1), task(2)], reports)
    connectEvents(store, { request: () => 0, cancel: () => {} }, () => {})
    await Promise.all([store.getState().ensureTaskList({}), store.getState().ensureReportList({})])
    const before = calls.length
    // The server's rows after the edit: what the refetch returns.
    tasks[0] = task(1, {
      flag: 'needs_adjustment',
      version: 2,
      links: [{ ...task(1).links[0]!, currentVersion: 2, state: 'suspect' }],
    })
    for (let i = 0; i < reports.length; i++)
      reports[i] = report(i + 1, {
        validity: 'stale',
        basis: [{ decisionId: D1, version: 1, state: 'suspect' }],
        claims: [{ ...report(i + 1).claims[0]!, state: 'stale' }],
      })
    const impact = impactOf({
      truncated: true,
      counts: {
        tasks: 1,
        needsAdjustment: 1,
        needsReverification: 0,
        acceptanceRevoked: 0,
        reports: 150,
        staleClaims: 150,
        restoredClaims: 0,
      },
      tasks: [
        {
          taskId: `${WS}-t1`,
          key: 'T-1',
          status: 'todo',
          flag: 'needs_adjustment',
          assigneeId: null,
          acceptanceRevoked: false,
        },
      ],
      // Truncated: the summary names only the first ones (in key order); the loaded rows that link D-1 are refetched.
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
        {
          reportId: `${WS}-r150`,
          key: 'R-150',
          taskId: `${WS}-t1`,
          authorId: null,
          staleClaimIds: [`${WS}-c150`],
          restoredClaimIds: [],
          validity: 'stale',
        },
      ],
    })
    emit('decision.changed', {
      workspaceId: WS,
      decision: decision(2),
      impact,
      editorial: false,
      reason: '',
      actorId: null,
    })
    // At once, from the event alone.
    expect(store.getState().tasks[`${WS}-t1`]!.flag).toBe('needs_adjustment')
    expect(store.getState().reports[`${WS}-r150`]!.validity).toBe('stale')
    expect(store.getState().reports[`${WS}-r1`]).toBeUndefined()
    // Loaded rows the cut impact does not name, current on D-1 before a normative edit: stale at once too.
    expect(store.getState().reports[`${WS}-r51`]).toMatchObject({
      validity: 'stale',
      basis: [{ state: 'suspect' }],
      claims: [{ state: 'stale' }],
    })
    await expect.poll(() => store.getState().reportLists[filterKey({})]!.staleTotal).toBe(150)
    await expect.poll(() => store.getState().counts.staleReports).toBe(150)
    const after = calls.slice(before)
    expect(after.filter(whole)).toEqual([])
    // Refetched: the one the impact names and the one that was stale already; the patched ones are exact.
    expect(after.filter((c) => c.method === 'reports.getMany')).toHaveLength(1)
    expect((after.find((c) => c.method === 'reports.getMany')!.params.ids as string[]).sort()).toEqual([
      `${WS}-r149`,
      `${WS}-r150`,
    ])
    expect(after.filter((c) => c.method === 'tasks.getMany')).toHaveLength(1)
    // One count per figure: the {} list's page is also the tab's stale count.
    expect(after.filter((c) => c.method === 'reports.page' && c.params.limit === 1)).toHaveLength(1)
  })

  it('applies the edit once when both its answer and its event arrive', async () => {
    const { store, calls, emit } = await opened([task(1)], [report(1)])
    connectEvents(store, { request: () => 0, cancel: () => {} }, () => {})
    await Promise.all([store.getState().ensureTaskList({}), store.getState().ensureReportList({})])
    const impact = impactOf({
      tasks: [
        {
          taskId: `${WS}-t1`,
          key: 'T-1',
          status: 'todo',
          flag: 'needs_adjustment',
          assigneeId: null,
          acceptanceRevoked: false,
        },
      ],
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
    })
    const before = calls.length
    // The editor applies its HTTP answer; the event of the same edit follows.
    await store.getState().applyDecisionChange(decision(2), impact)
    emit('decision.changed', {
      workspaceId: WS,
      decision: decision(2),
      impact,
      editorial: false,
      reason: '',
      actorId: null,
    })
    await store.getState().applyDecisionChange(decision(2), impact)
    await new Promise((r) => setTimeout(r, 0))
    const after = calls.slice(before).map((c) => c.method)
    expect(after.filter((m) => m === 'tasks.getMany')).toHaveLength(1)
    expect(after.filter((m) => m === 'reports.getMany')).toHaveLength(1)
    // The next version of the same decision is a new edit.
    await store.getState().applyDecisionChange(decision(3), { ...impact, version: 3 })
    expect(calls.slice(before).filter((c) => c.method === 'tasks.getMany')).toHaveLength(2)
  })

  it('shows the claims a revert restored as valid at once', async () => {
    const staleReport = report(1, {
      validity: 'stale',
      basis: [{ decisionId: D1, version: 1, state: 'suspect' }],
      claims: [{ ...report(1).claims[0]!, state: 'stale' }],
    })
    const { store } = await opened([task(1)], [staleReport])
    await store.getState().ensureReportList({})
    expect(store.getState().reportLists[filterKey({})]!.staleTotal).toBe(1)
    const impact = impactOf({
      version: 3,
      normative: true,
      reports: [
        {
          reportId: `${WS}-r1`,
          key: 'R-1',
          taskId: `${WS}-t1`,
          authorId: null,
          staleClaimIds: [],
          restoredClaimIds: [`${WS}-c1`],
          validity: 'valid',
        },
      ],
    })
    void store.getState().applyDecisionChange(decision(3), impact)
    // Before any refetch answers: valid, and the list's stale count follows.
    expect(store.getState().reports[`${WS}-r1`]).toMatchObject({ validity: 'valid', claims: [{ state: 'valid' }] })
    expect(store.getState().reportLists[filterKey({})]!.staleTotal).toBe(0)
  })

  it('recounts once more when asked while a recount is in flight (its read may predate the change)', async () => {
    const { store, reports } = await opened([], [report(1, { validity: 'stale' })])
    await store.getState().refreshCounts()
    expect(store.getState().counts.staleReports).toBe(1)
    const first = store.getState().refreshCounts() // reads now: one stale report
    reports[0] = { ...reports[0]!, validity: 'valid' } // the change lands after that read
    const second = store.getState().refreshCounts()
    const third = store.getState().refreshCounts() // a burst shares the one follow-up
    expect(third).toBe(second)
    await Promise.all([first, second])
    expect(store.getState().counts.staleReports).toBe(0)
  })

  it('fetches tasks asked for by id in one call per tick, only those not cached', async () => {
    const { store, calls } = await opened([task(1), task(2), task(3)], [report(1, { taskId: `${WS}-t3` })])
    await store.getState().ensureReportList({})
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

  it('after a reconnect reloads each loaded list page-wise, as far as it was shown', async () => {
    const tasks = Array.from({ length: 150 }, (_, i) => task(i + 1))
    const { store, calls } = await opened(tasks, [])
    await store.getState().ensureTaskList({})
    await store.getState().loadMoreTasks({})
    const before = calls.length
    await store.getState().resync()
    const pages = calls.slice(before).filter((c) => c.method === 'tasks.page' && c.params.limit !== 1)
    expect(pages.map((c) => c.params.cursor ?? null)).toEqual([null, '100'])
    expect(store.getState().taskLists[filterKey({})]!.ids).toHaveLength(150)
  })
})
