/**
 * What a change to a decision's normative content does to the work that depends on it (DESIGN §2).
 * Runs inside the caller's transaction; reads and writes only the rows linked to the decision's old and new
 * content (the tasks linked to it, the claims and basis entries pinned to either content).
 */
import { IMPACT_SUMMARY_LIMIT, type Impact } from '../../../shared/schemas'
import { taskFlagWords as flagWords } from '../../../shared/task-rules'
import type { TaskFlagValue, TaskStatusValue } from '../store/tasks-repo'
import type { Ctx } from './context'
import {
  finishSummary,
  hitOf,
  memberIds,
  reserveFor,
  summaryTruncated,
  toImpactReports,
  toImpactTasks,
  type TaskHit,
} from './impact'
import { makeId, makeKey } from './ids'
import { touchedReports, type EditPins, type TouchedReport } from './touched-reports'

/** The flag a task gets when a decision it depends on changes; a stronger flag it already has is kept. */
export function flagFor(status: TaskStatusValue, current: TaskFlagValue | null): TaskFlagValue {
  if (status === 'delivered' || status === 'accepted' || current === 'needs_reverification')
    return 'needs_reverification'
  if (status === 'in_progress' || current === 'needs_adjustment') return 'needs_adjustment'
  return 'requirements_updated'
}

/** Statuses whose assignee is told at once; a todo task's assignee reads the new requirement when it starts. */
const notifiedStatuses: ReadonlySet<TaskStatusValue> = new Set(['in_progress', 'delivered', 'accepted'])

export interface PropagationResult {
  impact: Impact
  noticeIds: number[]
}

const mergedText = (key: string) => `${key} is merged: the base branch has its code; a follow-up task will be created`

/** The merged tasks an edit to `to` leaves behind, for the preview. */
function mergedSide(ctx: Ctx, decisionId: number, to: string): Pick<Impact, 'mergedTasks'> {
  const rows = ctx.store.tasks.mergedDependentsNotAt(decisionId, to)
  const mergedTasks = rows.map((t) => ({
    taskId: makeId(ctx.wsId, 'task', t.id),
    key: makeKey('task', t.id),
    text: mergedText(makeKey('task', t.id)),
  }))
  return mergedTasks.length ? { mergedTasks } : {}
}

/**
 * A merged task is not reopened by a change to a decision it implemented (its worktree is gone, its code is in the
 * base branch): a follow-up task linked to the new version, assigned like it, brings the code in line. Its link is
 * re-pinned so that the next edit does not make a second follow-up for the same change.
 */
function createFollowUps(
  ctx: Ctx,
  decision: { id: number; version: number; statement: string },
  to: string,
  at: string,
): number[] {
  const { store } = ctx
  const dkey = makeKey('decision', decision.id)
  return store.tasks.mergedDependentsNotAt(decision.id, to).map((t) => {
    const key = makeKey('task', t.id)
    const id = store.tasks.insert({
      title: `Follow up ${key} for ${dkey} v${decision.version}: ${t.title}`,
      spec: `${key} was merged before ${dkey} changed to v${decision.version}: the base branch has its code, written for the earlier version. Bring it in line with the current statement: ${decision.statement}`,
      acceptance_criteria: t.acceptance_criteria,
      assignee_id: t.assignee_id,
      required_reports: t.required_reports,
      created_at: at,
    })
    store.tasks.replaceLinks(id, [{ decisionId: decision.id, version: decision.version, fingerprint: to }])
    store.tasks.repinLink(t.id, decision.id, decision.version, to)
    store.log.appendEvent(
      'task.created',
      { taskId: id, followUpOf: t.id, decisionId: decision.id, version: decision.version },
      at,
    )
    return id
  })
}

interface Recipient {
  tasks: { id: number; flag: TaskFlagValue }[]
  /** How many of its reports the edit leaves behind (a claim made stale or its basis made suspect). */
  reports: number
}

/**
 * The report side of an edit from the figures kept with the pins (migration 012), not from the reports: the
 * reports pinned to either content, the claims made stale and restored, each author's count, and the first
 * reports for the summary. Every report that existed is at most `pins.last` here (the edit is being made).
 */
function reportSide(ctx: Ctx, pins: EditPins, actorId: number | null, recipient: (m: number) => Recipient) {
  const r = ctx.store.reports
  const from = r.pinTotals(pins.decisionId, pins.from)
  const to = r.pinTotals(pins.decisionId, pins.to)
  const overlap = r.pinOverlap(
    pins.decisionId,
    { fingerprint: pins.from, reports: from.reports },
    { fingerprint: pins.to, reports: to.reports },
  )
  // The reports pinned to `from` are the ones the edit leaves behind: their authors are told.
  for (const a of r.pinAuthors(pins.decisionId, pins.from))
    if (a.authorId !== 0 && a.authorId !== actorId) recipient(a.authorId).reports = a.reports
  return {
    first: touchedReports(ctx.store, pins, 0, IMPACT_SUMMARY_LIMIT),
    reports: from.reports + to.reports - overlap,
    staleClaims: from.claims,
    restoredClaims: to.claims,
    claimsOfLeaving: from.reportClaims,
  }
}

function summary(
  ctx: Ctx,
  pins: EditPins,
  version: number,
  hits: TaskHit[],
  counts: Impact['counts'],
  first: TouchedReport[],
  notified: number[],
  reserve: number,
): Impact {
  const member = memberIds(ctx.wsId)
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
export function previewPropagation(
  ctx: Ctx,
  decision: { id: number; version: number; title: string; statement: string; rationale: string },
  from: string,
  to: string,
  actorId: number | null,
): Impact {
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
    if (!r) recipients.set(m, (r = { tasks: [], reports: 0 }))
    return r
  }
  for (const t of all)
    if (t.assigneeId !== null && t.assigneeId !== actorId && notifiedStatuses.has(t.oldStatus)) recipient(t.assigneeId)
  const pins = { decisionId: decision.id, from, to, last: ctx.store.reports.lastId() }
  const side = reportSide(ctx, pins, actorId, recipient)
  const counts = {
    tasks: all.length,
    needsAdjustment: all.filter((t) => t.flag === 'needs_adjustment').length,
    needsReverification: all.filter((t) => t.flag === 'needs_reverification').length,
    acceptanceRevoked: all.filter((t) => t.oldStatus === 'accepted').length,
    reports: side.reports,
    staleClaims: side.staleClaims,
    restoredClaims: side.restoredClaims,
  }
  return {
    ...summary(
      ctx,
      pins,
      decision.version + 1,
      all.slice(0, IMPACT_SUMMARY_LIMIT),
      counts,
      side.first,
      [...recipients.keys()],
      reserveFor(decision, ''),
    ),
    ...mergedSide(ctx, decision.id, to),
  }
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
  store.decisions.insertImpact({
    decision_id: decision.id,
    version: decision.version,
    from_fingerprint: from,
    to_fingerprint: to,
    last_report_id: pins.last,
  })
  store.tasks.flagDependents(decision.id, decision.version, to, at)
  const followUps = createFollowUps(ctx, decision, to, at)
  const tc = store.tasks.impactCounts(decision.id, decision.version)

  const recipients = new Map<number, Recipient>()
  const recipient = (m: number) => {
    let r = recipients.get(m)
    if (!r) recipients.set(m, (r = { tasks: [], reports: 0 }))
    return r
  }
  for (const r of store.tasks.impactRecipients(decision.id, decision.version, actorId))
    recipient(r.assigneeId).tasks = r.tasks.map(([id, flag]) => ({ id, flag }))
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
        // Its reports are derived from the edit (LogRepo.reportIds): one author can have 100,000 of them.
        report_ids: '[]',
        report_count: hit.reports,
        text: noticeText(ctx, pins, decision, reason, memberId, hit),
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
    reports: side.reports,
    staleClaims: side.staleClaims,
    restoredClaims: side.restoredClaims,
  }
  const hits = store.tasks.impactPage(decision.id, decision.version, 0, IMPACT_SUMMARY_LIMIT).map(hitOf)
  const impact = summary(
    ctx,
    pins,
    decision.version,
    hits,
    counts,
    side.first,
    [...recipients.keys()],
    reserveFor(decision, reason),
  )
  if (followUps.length) impact.followUpTaskIds = followUps.map((n) => makeId(ctx.wsId, 'task', n))
  return { impact, noticeIds }
}

const NOTICE_LIST = 8

function listSome<T>(items: T[], total: number, show: (t: T) => string): string {
  const head = items.slice(0, NOTICE_LIST).map(show).join(', ')
  return total > NOTICE_LIST ? `${head} and ${total - NOTICE_LIST} more` : head
}

/** The notice's first line: one sentence, whatever punctuation the reason ends with ("felt hung." is not "felt hung.."). */
export function noticeHeadline(d: { id: number; version: number; title: string }, reason: string): string {
  const why = reason.trim()
  const line = `${makeKey('decision', d.id)} "${d.title}" changed (now v${d.version})${why ? `: ${why}` : ''}`
  return /[.!?…]$/.test(line) ? line : `${line}.`
}

function noticeText(
  ctx: Ctx,
  pins: EditPins,
  d: { id: number; version: number; title: string; statement: string },
  reason: string,
  memberId: number,
  hit: Recipient,
): string {
  const lines = [noticeHeadline(d, reason)]
  lines.push(`Current statement: ${d.statement}`)
  if (hit.tasks.length)
    lines.push(
      `Your tasks: ${listSome(hit.tasks, hit.tasks.length, (t) => `${makeKey('task', t.id)} (${flagWords[t.flag]})`)}.`,
    )
  if (hit.reports) {
    const first = ctx.store.reports.authorPins(pins.decisionId, pins.from, memberId, 0, pins.last, NOTICE_LIST)
    const stale = ctx.store.reports.pinnedClaimCounts(pins.decisionId, pins.from, first)
    lines.push(
      `Your reports with stale evidence: ${listSome(first, hit.reports, (id) => {
        const n = stale.get(id) ?? 0
        return `${makeKey('report', id)} (${n} claim${n === 1 ? '' : 's'} stale)`
      })}.`,
    )
  }
  return lines.join('\n')
}
