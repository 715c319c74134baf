import { makeKey, parseKey } from '../../../../shared/keys'
import { SEARCH_MARK_START, type RecordHit, type RecordHitField } from '../../../../shared/schemas'
import { ftsQuery } from '../../store/search-repo'
import type { RecordHitRow, ReportHitRow } from '../../store/search-repo'
import type { Ctx } from '../context'
import { makeId } from '../ids'

/** The snippet with the most matches (the first of equals), with the field it comes from (snippets in column order). */
function matched(row: RecordHitRow, fields: RecordHitField[]): { field: RecordHitField; snippet: string } {
  const snippets = [row.s0, row.s1, row.s2]
  const marks = snippets.map((s) => (s ? s.split(SEARCH_MARK_START).length - 1 : 0))
  const i = marks.indexOf(Math.max(...marks))
  return { field: fields[i] ?? fields[0]!, snippet: snippets[i] ?? row.s0 }
}

/** As the report's card names it: "test of T-1". */
const reportTitle = (kind: string, taskId: number) => `${kind} of ${makeKey('task', taskId)}`

/** The record a query names by its key (`R-6`, `d-1`), if it exists and is shown in lists. */
function byKey(ctx: Ctx, query: string): RecordHit | null {
  const key = parseKey(query, { ignoreCase: true })
  if (!key) return null
  const { store, wsId } = ctx
  if (key.kind === 'decision') {
    const d = store.decisions.get(key.n)
    if (!d) return null
    const base = { kind: 'decision', id: makeId(wsId, 'decision', d.id), key: makeKey('decision', d.id) } as const
    return { ...base, title: d.title, status: d.status, field: 'key', snippet: d.title }
  }
  if (key.kind === 'task') {
    const t = store.tasks.get(key.n)
    if (!t || t.archived_at) return null
    const base = { kind: 'task', id: makeId(wsId, 'task', t.id), key: makeKey('task', t.id) } as const
    return { ...base, title: t.title, status: t.status, field: 'key', snippet: t.title }
  }
  if (key.kind === 'report') {
    const r = store.reports.get(key.n)
    if (!r) return null
    return {
      kind: 'report',
      id: makeId(wsId, 'report', r.id),
      key: makeKey('report', r.id),
      title: reportTitle(r.kind, r.task_id),
      status: r.verdict,
      field: 'key',
      snippet: r.summary,
      taskId: makeId(wsId, 'task', r.task_id),
    }
  }
  return null
}

/**
 * search.records: the decisions, tasks and reports a query finds, the one its key names first, then decisions, tasks
 * and reports, each newest first and at most `limit` of each. A decision matched by what it says now shows that;
 * one matched only by an earlier revision shows the newest such revision ("history", with its version).
 */
export function searchRecords(ctx: Ctx, query: string, limit = 10): RecordHit[] {
  const { store, wsId } = ctx
  const exact = byKey(ctx, query)
  const fts = ftsQuery(query)
  const hits: RecordHit[] = exact ? [exact] : []
  const seen = new Set(exact ? [exact.id] : [])
  const add = (hit: RecordHit) => {
    if (seen.has(hit.id)) return
    seen.add(hit.id)
    hits.push(hit)
  }
  if (!fts) return hits
  const search = store.recordSearch

  let decisions = 0
  const decision = (r: RecordHitRow, field: RecordHitField, snippet: string, version?: number) => {
    if (decisions >= limit) return
    const id = makeId(wsId, 'decision', r.id)
    if (seen.has(id)) return
    decisions++
    add({
      kind: 'decision',
      id,
      key: makeKey('decision', r.id),
      title: r.title,
      status: r.status,
      field,
      snippet,
      ...(version !== undefined ? { version } : {}),
    })
  }
  for (const r of search.decisions(fts, limit)) {
    const m = matched(r, ['title', 'statement', 'rationale'])
    decision(r, m.field, m.snippet)
  }
  for (const r of search.decisionHistory(fts, limit * 4)) decision(r, 'history', r.s0, r.version)

  for (const r of search.tasks(fts, limit)) {
    const m = matched(r, ['title', 'spec', 'acceptance'])
    add({
      kind: 'task',
      id: makeId(wsId, 'task', r.id),
      key: makeKey('task', r.id),
      title: r.title,
      status: r.status,
      ...m,
    })
  }

  // Summaries and claims merged newest report first; a report shows once, by its summary when that matched.
  const reports = new Map<number, ReportHitRow>()
  for (const r of [...search.reportSummaries(fts, limit), ...search.reportClaims(fts, limit * 4)])
    if (!reports.has(r.id)) reports.set(r.id, r)
  const newest = [...reports.values()].sort((a, b) => b.id - a.id).slice(0, limit)
  for (const r of newest)
    add({
      kind: 'report',
      id: makeId(wsId, 'report', r.id),
      key: makeKey('report', r.id),
      title: reportTitle(r.kind, r.task_id),
      status: r.verdict,
      field: r.field,
      snippet: r.s0,
      taskId: makeId(wsId, 'task', r.task_id),
    })
  return hits
}
