/**
 * What a change to a decision's normative content does to the work that depends on it (DESIGN §2).
 * Runs inside the caller's transaction; reads and writes only the rows linked to the decision's old and new
 * content (the tasks linked to it, the claims and basis entries pinned to either content). Its preview is this
 * same code run in a transaction that is rolled back (decisions.ts previewImpact).
 */
import { IMPACT_SUMMARY_LIMIT, type Impact } from '../../../../shared/schemas'
import { taskFlagWords as flagWords, notifiedOnChange } from '../../../../shared/task-rules'
import type { TaskFlagValue } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { finishSummary, hitOf, memberIds, reserveFor, summaryTruncated, toImpactReports, toImpactTasks } from './impact'
import { makeId, makeKey } from '../ids'
import { applyFollowUps, mergedTasksOf } from './follow-ups'
import { touchedReports, type EditPins } from '../reports/touched-reports'
import { workspaceSettings } from '../workspace/workspace-settings'

export interface PropagationResult {
  impact: Impact
  noticeIds: number[]
  /**
   * The merged tasks the change left behind with no follow-up open; each got a follow-up (impact.followUpTaskIds,
   * in the same order), or, with followUps: offer, is offered one (impact.mergedTasks).
   */
  merged: number[]
  /** Follow-ups the change cancelled (obsolete) or carried to the new version: their rows changed. */
  changedTasks: number[]
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
  if (from.reports)
    for (const a of r.pinAuthors(pins.decisionId, pins.from))
      if (a.authorId !== 0 && a.authorId !== actorId) recipient(a.authorId).reports = a.reports
  return {
    first: touchedReports(ctx.store, pins, 0, IMPACT_SUMMARY_LIMIT, { from: from.reports > 0, to: to.reports > 0 }),
    reports: from.reports + to.reports - overlap,
    staleClaims: from.claims,
    restoredClaims: to.claims,
    claimsOfLeaving: from.reportClaims,
  }
}

/**
 * Applies a normative change whose fingerprint went from → to (producing `decision.version`): flags the
 * dependent tasks in one set-based update, records the edit (with the tasks it flagged), creates the merged
 * tasks' follow-ups, queues notices, counts. Claims are not written: their staleness is their pin against the
 * decision's fingerprint.
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
  // First the merged tasks' follow-ups: one cancelled here as obsolete is then left alone by the flagging.
  const mode = workspaceSettings(ctx).followUps
  const follow = applyFollowUps(ctx, decision, to, mode, at)
  const flagged = store.tasks.flagDependents(decision.id, to, at)
  store.decisions.insertImpact(
    {
      decision_id: decision.id,
      version: decision.version,
      from_fingerprint: from,
      to_fingerprint: to,
      last_report_id: pins.last,
    },
    flagged,
  )
  const followUps = follow.created

  const hits = flagged.rows.map(hitOf)
  const recipients = new Map<number, Recipient>()
  const recipient = (m: number) => {
    let r = recipients.get(m)
    if (!r) recipients.set(m, (r = { tasks: [], reports: 0 }))
    return r
  }
  const byFlag: Record<TaskFlagValue, number> = {
    requirements_updated: 0,
    needs_adjustment: 0,
    needs_reverification: 0,
  }
  let acceptanceRevoked = 0
  const told = new Map<number, Recipient['tasks']>()
  for (const t of hits) {
    byFlag[t.flag]++
    if (t.oldStatus === 'accepted') acceptanceRevoked++
    if (t.assigneeId !== null && t.assigneeId !== actorId && notifiedOnChange.includes(t.oldStatus)) {
      const tasks = told.get(t.assigneeId)
      if (tasks) tasks.push({ id: t.id, flag: t.flag })
      else told.set(t.assigneeId, [{ id: t.id, flag: t.flag }])
    }
  }
  // Notices go out to the assignees in member order, then to the authors of reports left behind.
  for (const m of [...told.keys()].sort((a, b) => a - b)) recipient(m).tasks = told.get(m)!
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

  store.log.bumpMany({
    'tasks_flagged.requirements_updated': byFlag.requirements_updated,
    'tasks_flagged.needs_adjustment': byFlag.needs_adjustment,
    'tasks_flagged.needs_reverification': byFlag.needs_reverification,
    acceptances_revoked: acceptanceRevoked,
    notices_sent: noticeIds.length,
    'claims.made_stale': side.staleClaims,
    'claims.kept_valid': Math.max(0, side.claimsOfLeaving - side.staleClaims),
  })

  const counts = {
    tasks: hits.length,
    needsAdjustment: byFlag.needs_adjustment,
    needsReverification: byFlag.needs_reverification,
    acceptanceRevoked,
    reports: side.reports,
    staleClaims: side.staleClaims,
    restoredClaims: side.restoredClaims,
  }
  const member = memberIds(ctx.wsId)
  const impact = finishSummary(
    {
      decisionId: makeId(ctx.wsId, 'decision', decision.id),
      version: decision.version,
      normative: true,
      truncated: summaryTruncated(counts),
      counts,
      tasks: toImpactTasks(ctx.wsId, hits.slice(0, IMPACT_SUMMARY_LIMIT), member),
      reports: toImpactReports(ctx, pins, side.first, 0, member),
      notifiedMemberIds: [...recipients.keys()].sort((a, b) => a - b).map((m) => makeId(ctx.wsId, 'member', m)),
      ...(followUps.length ? { followUpTaskIds: followUps.map((n) => makeId(ctx.wsId, 'task', n)) } : {}),
      // Offered, not created: the answer names the merged tasks whose follow-up the user may create.
      ...(mode === 'offer' ? mergedTasksOf(ctx.wsId, follow.behind, mode) : {}),
      ...(follow.obsolete.length ? { obsoleteFollowUps: follow.obsolete } : {}),
    },
    reserveFor(decision, reason),
  )
  return { impact, noticeIds, merged: follow.behind, changedTasks: follow.changed }
}

/**
 * The label of a notice's second line, the decision's statement at the notice's version. The brief leaves that line
 * out where it shows the same text among its decisions (runtime/brief.ts); a notice read alone keeps it.
 */
export const CURRENT_STATEMENT = 'Current statement: '

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
  lines.push(`${CURRENT_STATEMENT}${d.statement}`)
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
