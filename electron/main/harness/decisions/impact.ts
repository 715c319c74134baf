/**
 * The impact of an edit as the API shows it: a compact summary (counts, the first items) that is the edit's
 * answer and its event at once, and the whole of it paged from the store (decisions.impact).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import {
  IMPACT_SUMMARY_LIMIT,
  type Impact,
  type ImpactCounts,
  type ImpactPage,
  type ImpactReport,
  type ImpactTask,
} from '../../../../shared/schemas'
import { preserialize } from '../../platform/events/serialized'
import type { ImpactTaskRow, TaskFlagValue, TaskStatusValue } from '../../store/tasks-repo'
import { decisionRow, type Ctx } from '../context'
import { makeId, makeKey } from '../ids'
import { touchedClaims, touchedReports, type EditPins, type TouchedReport } from '../reports/touched-reports'

/** A decision.changed frame stays under this; the summary gets what the decision, the reason and the envelope leave. */
export const FRAME_BYTES = 64 * 1024
const ENVELOPE_BYTES = 1024

/** What the rest of a decision.changed payload takes: the decision's texts and the edit's reason. */
export function reserveFor(d: { title: string; statement: string; rationale: string }, reason: string): number {
  return Buffer.byteLength(JSON.stringify([d.title, d.statement, d.rationale, reason]))
}

export const zeroCounts = (): ImpactCounts => ({
  tasks: 0,
  needsAdjustment: 0,
  needsReverification: 0,
  acceptanceRevoked: 0,
  reports: 0,
  staleClaims: 0,
  restoredClaims: 0,
})

export function emptyImpact(ws: string, decisionId: number, version: number): Impact {
  return {
    decisionId: makeId(ws, 'decision', decisionId),
    version,
    normative: false,
    truncated: false,
    counts: zeroCounts(),
    tasks: [],
    reports: [],
    notifiedMemberIds: [],
  }
}

/** Builds each member's id once (thousands of rows share a few members). */
export function memberIds(ws: string): (n: number | null) => string | null {
  const cache = new Map<number, string>()
  return (n) => {
    if (n === null) return null
    let id = cache.get(n)
    if (id === undefined) cache.set(n, (id = makeId(ws, 'member', n)))
    return id
  }
}

export interface TaskHit {
  id: number
  oldStatus: TaskStatusValue
  status: TaskStatusValue
  flag: TaskFlagValue
  assigneeId: number | null
}

export const hitOf = (r: ImpactTaskRow): TaskHit => ({
  id: r.task_id,
  oldStatus: r.old_status,
  status: r.status,
  flag: r.flag,
  assigneeId: r.assignee_id,
})

export function toImpactTasks(ws: string, hits: TaskHit[], member = memberIds(ws)): ImpactTask[] {
  return hits.map((t) => ({
    taskId: makeId(ws, 'task', t.id),
    key: makeKey('task', t.id),
    status: t.status,
    flag: t.flag,
    assigneeId: member(t.assigneeId),
    acceptanceRevoked: t.oldStatus === 'accepted',
  }))
}

/** Impact entries for touched reports, with their stale and restored claim ids (read for exactly their range). */
export function toImpactReports(
  ctx: Ctx,
  pins: EditPins,
  reports: TouchedReport[],
  after: number,
  member = memberIds(ctx.wsId),
): ImpactReport[] {
  const lastOne = reports[reports.length - 1]
  if (!lastOne) return []
  const ws = ctx.wsId
  const claims = touchedClaims(ctx.store, pins, after, lastOne.id)
  const claimIds = (ids: number[] | undefined) => (ids ?? []).map((c) => makeId(ws, 'claim', c))
  const stale = ctx.store.reports.staleAmong(reports.map((r) => r.id))
  return reports.map((r) => ({
    reportId: makeId(ws, 'report', r.id),
    key: makeKey('report', r.id),
    taskId: makeId(ws, 'task', r.taskId),
    authorId: member(r.authorId),
    staleClaimIds: claimIds(claims.stale.get(r.id)),
    restoredClaimIds: claimIds(claims.restored.get(r.id)),
    validity: stale.has(r.id) ? 'stale' : 'valid',
  }))
}

/**
 * Fits the summary to its budget (cutting the lists, never the counts) and serializes it once: the bridge
 * reuses that text for the HTTP answer and the event frame (events/serialized.ts).
 */
export function finishSummary(impact: Impact, reserve: number): Impact {
  const budget = FRAME_BYTES - ENVELOPE_BYTES - reserve
  let json = JSON.stringify(impact)
  while (Buffer.byteLength(json) > budget && (impact.tasks.length || impact.reports.length)) {
    impact.tasks = impact.tasks.slice(0, Math.floor(impact.tasks.length * 0.75))
    impact.reports = impact.reports.slice(0, Math.floor(impact.reports.length * 0.75))
    impact.truncated = true
    json = JSON.stringify(impact)
  }
  return preserialize(impact, json)
}

export const summaryTruncated = (c: ImpactCounts) => c.tasks > IMPACT_SUMMARY_LIMIT || c.reports > IMPACT_SUMMARY_LIMIT

const cursorPattern = /^(-1|\d{1,15}):(-1|\d{1,15})$/

/** decisions.impact: the whole impact of the edit that produced `version`, tasks and reports each in key order. */
export function impactPage(ctx: Ctx, p: ParsedParams<'decisions.impact'>): ImpactPage {
  const row = decisionRow(ctx, p.decisionId)
  const key = makeKey('decision', row.id)
  if (p.version > row.version)
    throw new ApiError('not_found', `version: ${key} has no v${p.version} (it is at v${row.version})`)
  const m = p.cursor === undefined ? ['', '0', '0'] : cursorPattern.exec(p.cursor)
  if (!m)
    throw new ApiError('invalid_params', 'cursor: not a cursor of decisions.impact (pass back nextCursor as it came)')
  const limit = p.limit ?? IMPACT_SUMMARY_LIMIT
  let taskAfter = Number(m[1])
  let reportAfter = Number(m[2])
  const rec = ctx.store.decisions.impact(row.id, p.version)
  // An editorial edit (or a decision's creation) flagged nothing: its impact is empty.
  if (!rec) return { tasks: [], reports: [], nextCursor: null }
  const member = memberIds(ctx.wsId)
  let tasks: ImpactTask[] = []
  if (taskAfter >= 0) {
    const after = taskAfter
    const rows = ctx.store.decisions
      .impactTasks(row.id, p.version)
      .filter((t) => t.task_id > after)
      .slice(0, limit + 1)
    const page = rows.slice(0, limit)
    tasks = toImpactTasks(ctx.wsId, page.map(hitOf), member)
    taskAfter = rows.length > limit ? (page[page.length - 1]?.task_id ?? -1) : -1
  }
  let reports: ImpactReport[] = []
  if (reportAfter >= 0) {
    const pins = { decisionId: row.id, from: rec.from_fingerprint, to: rec.to_fingerprint, last: rec.last_report_id }
    const touched = touchedReports(ctx.store, pins, reportAfter, limit + 1)
    const page = touched.slice(0, limit)
    reports = toImpactReports(ctx, pins, page, reportAfter, member)
    reportAfter = touched.length > limit ? (page[page.length - 1]?.id ?? -1) : -1
  }
  return { tasks, reports, nextCursor: taskAfter < 0 && reportAfter < 0 ? null : `${taskAfter}:${reportAfter}` }
}
