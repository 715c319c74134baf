/**
 * What a change to a decision's normative content does to the work that depends on it (DESIGN §2).
 * Runs inside the caller's transaction; reads and writes only the rows linked to the decision's old and new
 * content (the tasks linked to it, the claims and basis entries pinned to either content).
 */
import { IMPACT_SUMMARY_LIMIT, type Impact } from '../../../shared/schemas'
import { taskFlagWords as flagWords } from '../../../shared/task-rules'
import type { TaskFlagValue, TaskStatusValue } from '../store/tasks-repo'
import type { Ctx } from './context'
import { finishSummary, hitOf, memberIds, reserveFor, summaryTruncated, toImpactReports, toImpactTasks, type TaskHit } from './impact'
import { makeId, makeKey } from './ids'
import { touchedReports, type EditPins, type TouchedReport } from './touched-reports'

/** The flag a task gets when a decision it depends on changes; a stronger flag it already has is kept. */
export function flagFor(status: TaskStatusValue, current: TaskFlagValue | null): TaskFlagValue {
  if (status === 'delivered' || status === 'accepted' || current === 'needs_reverification') return 'needs_reverification'
  if (status === 'in_progress' || current === 'needs_adjustment') return 'needs_adjustment'
  return 'requirements_updated'
}

/** Statuses whose assignee is told at once; a todo task's assignee reads the new requirement when it starts. */
const notifiedStatuses: ReadonlySet<TaskStatusValue> = new Set(['in_progress', 'delivered', 'accepted'])

export interface PropagationResult {
  impact: Impact
  noticeIds: number[]
}

interface Recipient {
  tasks: { id: number; flag: TaskFlagValue }[]
  reports: { id: number; staleClaims: number }[]
}

/** A report the edit leaves behind (a claim made stale or its basis made suspect): its author is told. */
const leaves = (r: TouchedReport) => r.stale > 0 || r.leaving

/** Everything about the touched reports an edit needs, in one pass over them. */
function reportSide(ctx: Ctx, pins: EditPins, actorId: number | null, recipient: (m: number) => Recipient) {
  const reports = touchedReports(ctx.store, pins, 0)
  let staleClaims = 0
  let restoredClaims = 0
  let claimsOfLeaving = 0
  for (const r of reports) {
    staleClaims += r.stale
    restoredClaims += r.restored
    if (!leaves(r)) continue
    claimsOfLeaving += r.claimCount
    if (r.authorId !== null && r.authorId !== actorId) recipient(r.authorId).reports.push({ id: r.id, staleClaims: r.stale })
  }
  return { reports, staleClaims, restoredClaims, claimsOfLeaving }
}

function summary(ctx: Ctx, pins: EditPins, version: number, hits: TaskHit[], counts: Impact['counts'], reports: TouchedReport[], notified: number[], reserve: number): Impact {
  const member = memberIds(ctx.wsId)
  const first = reports.slice(0, IMPACT_SUMMARY_LIMIT)
  return finishSummary(
    {
      decisionId: makeId(ctx.wsId, 'decision', pins.decisionId),
      version,
      normative: true,
      truncated: summaryTruncated(counts),
      counts,
      tasks: toImpactTasks(ctx.wsId, hits, member),
      reports: toImpactReports(ctx, pins, first, 0, member),
      notifiedMemberIds: notified.sort((a, b) => a - b).map((m) => makeId(ctx.wsId, 'member', m)),
    },
    reserve,
  )
}

/** Preview: what `apply` would do for a change from the decision's current content to `to`. Writes nothing. */
export function previewPropagation(ctx: Ctx, decision: { id: number; version: number; title: string; statement: string; rationale: string }, from: string, to: string, actorId: number | null): Impact {
  const all: TaskHit[] = ctx.store.tasks.dependentsNotAt(decision.id, to).map((t) => ({
    id: t.id,
    oldStatus: t.status,
    status: t.status === 'accepted' ? 'delivered' : t.status,
    flag: flagFor(t.status, t.flag),
    assigneeId: t.assignee_id,
  }))
  const recipients = new Map<number, Recipient>()
  const recipient = (m: number) => {
    let r = recipients.get(m)
    if (!r) recipients.set(m, (r = { tasks: [], reports: [] }))
    return r
  }
  for (const t of all) if (t.assigneeId !== null && t.assigneeId !== actorId && notifiedStatuses.has(t.oldStatus)) recipient(t.assigneeId)
  const pins = { decisionId: decision.id, from, to, last: ctx.store.reports.lastId() }
  const side = reportSide(ctx, pins, actorId, recipient)
  const counts = {
    tasks: all.length,
    needsAdjustment: all.filter((t) => t.flag === 'needs_adjustment').length,
    needsReverification: all.filter((t) => t.flag === 'needs_reverification').length,
    acceptanceRevoked: all.filter((t) => t.oldStatus === 'accepted').length,
    reports: side.reports.length,
    staleClaims: side.staleClaims,
    restoredClaims: side.restoredClaims,
  }
  return summary(ctx, pins, decision.version + 1, all.slice(0, IMPACT_SUMMARY_LIMIT), counts, side.reports, [...recipients.keys()], reserveFor(decision, ''))
}

/**
 * Applies a normative change whose fingerprint went from → to (producing `decision.version`): records the
 * edit, flags tasks, queues notices, counts. Claims are not written: their staleness is their pin against
 * the decision's fingerprint.
 */
export function applyPropagation(
  ctx: Ctx,
  decision: { id: number; version: number; title: string; statement: string; rationale: string },
  from: string,
  to: string,
  reason: string,
  actorId: number | null,
  at: string,
): PropagationResult {
  const { store } = ctx
  const pins = { decisionId: decision.id, from, to, last: store.reports.lastId() }
  store.decisions.insertImpact({ decision_id: decision.id, version: decision.version, from_fingerprint: from, to_fingerprint: to, last_report_id: pins.last })
  store.tasks.flagDependents(decision.id, decision.version, to, at)
  const tc = store.tasks.impactCounts(decision.id, decision.version)

  const recipients = new Map<number, Recipient>()
  const recipient = (m: number) => {
    let r = recipients.get(m)
    if (!r) recipients.set(m, (r = { tasks: [], reports: [] }))
    return r
  }
  for (const r of store.tasks.impactRecipients(decision.id, decision.version, actorId)) recipient(r.assigneeId).tasks = r.tasks.map(([id, flag]) => ({ id, flag }))
  const side = reportSide(ctx, pins, actorId, recipient)

  const noticeIds: number[] = []
  for (const [memberId, hit] of recipients) {
    noticeIds.push(
      store.log.insertNotice({
        member_id: memberId,
        kind: 'decision_changed',
        decision_id: decision.id,
        decision_version: decision.version,
        task_ids: JSON.stringify(hit.tasks.map((t) => t.id)),
        report_ids: JSON.stringify(hit.reports.map((r) => r.id)),
        text: noticeText(decision, reason, hit),
        created_at: at,
      }),
    )
  }

  const log = store.log
  log.bump('tasks_flagged.requirements_updated', tc.requirementsUpdated)
  log.bump('tasks_flagged.needs_adjustment', tc.needsAdjustment)
  log.bump('tasks_flagged.needs_reverification', tc.needsReverification)
  log.bump('acceptances_revoked', tc.acceptanceRevoked)
  log.bump('notices_sent', noticeIds.length)
  log.bump('claims.made_stale', side.staleClaims)
  log.bump('claims.kept_valid', Math.max(0, side.claimsOfLeaving - side.staleClaims))

  const counts = {
    tasks: tc.tasks,
    needsAdjustment: tc.needsAdjustment,
    needsReverification: tc.needsReverification,
    acceptanceRevoked: tc.acceptanceRevoked,
    reports: side.reports.length,
    staleClaims: side.staleClaims,
    restoredClaims: side.restoredClaims,
  }
  const hits = store.tasks.impactPage(decision.id, decision.version, 0, IMPACT_SUMMARY_LIMIT).map(hitOf)
  return { impact: summary(ctx, pins, decision.version, hits, counts, side.reports, [...recipients.keys()], reserveFor(decision, reason)), noticeIds }
}

function listSome<T>(items: T[], show: (t: T) => string, max = 8): string {
  const head = items.slice(0, max).map(show).join(', ')
  return items.length > max ? `${head} and ${items.length - max} more` : head
}

function noticeText(d: { id: number; version: number; title: string; statement: string }, reason: string, hit: Recipient): string {
  const lines = [`${makeKey('decision', d.id)} "${d.title}" changed (now v${d.version})${reason ? `: ${reason}` : ''}.`]
  lines.push(`Current statement: ${d.statement}`)
  if (hit.tasks.length) lines.push(`Your tasks: ${listSome(hit.tasks, (t) => `${makeKey('task', t.id)} (${flagWords[t.flag]})`)}.`)
  if (hit.reports.length) {
    lines.push(`Your reports with stale evidence: ${listSome(hit.reports, (r) => `${makeKey('report', r.id)} (${r.staleClaims} claim${r.staleClaims === 1 ? '' : 's'} stale)`)}.`)
  }
  return lines.join('\n')
}
