/** Report and notice rows → API entities: the report's validity and its claims' states are derived here. */
import type * as s from '../../../shared/schemas'
import { IMPACT_SUMMARY_LIMIT } from '../../../shared/schemas'
import type { NoticeRow } from '../store/log-repo'
import type { ReportRow } from '../store/reports-repo'
import type { ReadableStore } from '../store/readable-store'
import { makeId, makeKey } from './ids'
import { idOrNull, push } from './record-mappers'

/** Reports for a set of rows: basis, claims and claim links are read once for the whole set, not per row. */
export function toReports(ws: string, store: ReadableStore, rows: ReportRow[]): s.Report[] {
  const related = store.reports.related(rows.map((r) => r.id))
  const byClaim = new Map<number, { decisionIds: string[]; stale: boolean }>()
  for (const l of related.links) {
    let entry = byClaim.get(l.claim_id)
    if (!entry) byClaim.set(l.claim_id, (entry = { decisionIds: [], stale: false }))
    entry.decisionIds.push(makeId(ws, 'decision', l.decision_id))
    if (l.pinned_fingerprint !== l.current_fingerprint) entry.stale = true
  }
  const claims = new Map<number, s.Claim[]>()
  for (const c of related.claims) {
    const entry = byClaim.get(c.id)
    push(claims, c.report_id, {
      id: makeId(ws, 'claim', c.id),
      text: c.text,
      decisionIds: entry?.decisionIds ?? [],
      state: entry?.stale ? 'stale' : 'valid',
      verdict: c.verdict,
    })
  }
  const basis = new Map<number, s.BasisEntry[]>()
  for (const b of related.basis) {
    push(basis, b.report_id, {
      decisionId: makeId(ws, 'decision', b.decision_id),
      version: b.version,
      state: b.fingerprint === b.current_fingerprint ? 'current' : 'suspect',
    })
  }
  const stale = store.reports.staleAmong(rows.map((r) => r.id))
  return rows.map((r) => {
    const c = claims.get(r.id) ?? []
    const b = basis.get(r.id) ?? []
    return {
      id: makeId(ws, 'report', r.id),
      key: makeKey('report', r.id),
      workspaceId: ws,
      taskId: makeId(ws, 'task', r.task_id),
      authorId: idOrNull(ws, 'member', r.author_id),
      kind: r.kind,
      verdict: r.verdict,
      summary: r.summary,
      validity: stale.has(r.id) ? 'stale' : 'valid',
      basis: b,
      artifact: { commit: r.artifact_commit, digest: r.artifact_digest },
      claims: c,
      createdAt: r.created_at,
      supersededBy: idOrNull(ws, 'report', r.superseded_by),
    }
  })
}

export function toReport(ws: string, store: ReadableStore, r: ReportRow): s.Report {
  return toReports(ws, store, [r]).at(0)!
}

/** A notice with every task and report it names (its reports may be derived from its edit: see LogRepo.reportIds). */
export function toNotice(ws: string, store: ReadableStore, r: NoticeRow): s.Notice {
  return noticeOf(ws, r, JSON.parse(r.task_ids) as number[], store.log.reportIds(r))
}

/** The notice for its event: the first ids and the counts, so its size does not grow with the edit. */
export function toNoticeSummary(ws: string, store: ReadableStore, r: NoticeRow): s.NoticeSummary {
  const tasks = JSON.parse(r.task_ids) as number[]
  return {
    ...noticeOf(ws, r, tasks.slice(0, IMPACT_SUMMARY_LIMIT), store.log.reportIds(r, 0, IMPACT_SUMMARY_LIMIT)),
    taskCount: tasks.length,
    reportCount: store.log.reportCount(r),
  }
}

function noticeOf(ws: string, r: NoticeRow, tasks: number[], reports: number[]): s.Notice {
  return {
    id: makeId(ws, 'notice', r.id),
    workspaceId: ws,
    memberId: makeId(ws, 'member', r.member_id),
    kind: r.kind,
    decisionId: makeId(ws, 'decision', r.decision_id),
    decisionVersion: r.decision_version,
    taskIds: tasks.map((n) => makeId(ws, 'task', n)),
    reportIds: reports.map((n) => makeId(ws, 'report', n)),
    text: r.text,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  }
}
