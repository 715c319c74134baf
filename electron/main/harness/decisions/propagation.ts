/**
 * What a change to a decision's normative content does to the work that depends on it (DESIGN §2).
 * Runs inside the caller's transaction; reads and writes only the rows linked to the decision's old and new
 * content (the tasks linked to it, the claims and basis entries pinned to either content). Its preview is this
 * same code run in a transaction that is rolled back (decisions.ts previewImpact).
 */
import { IMPACT_SUMMARY_LIMIT, type FollowUpMode, type Impact } from '../../../../shared/schemas'
import { notifiedOnChange } from '../../../../shared/task-rules'
import type { TaskFlagValue } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { finishSummary, hitOf, memberIds, reserveFor, summaryTruncated, toImpactReports, toImpactTasks } from './impact'
import { makeId } from '../ids'
import { noticeText, type Recipient } from './notice-text'
import { applyFollowUps, mergedTasksOf, type FollowUpOutcome } from './follow-ups'
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

/**
 * The report side of an edit from the figures kept with the pins (migration 012), not from the reports: the
 * reports pinned to either content, the claims made stale and restored, each author's count, and the first
 * reports for the summary. Every report that existed is at most `pins.last` here (the edit is being made).
 */
function reportSide(ctx: Ctx, pins: EditPins, actorId: number | null, recipient: (m: number) => Recipient) {
  const r = ctx.store.reportPins
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

/** The decision as changed: what the notices and the summary say of it. */
type ChangedDecision = { id: number; version: number; title: string; statement: string; rationale: string }

/**
 * Applies a normative change whose fingerprint went from → to (producing `decision.version`), in three steps: the
 * work it moves (follow-ups of merged tasks, the dependent tasks flagged in one set-based update, the edit recorded
 * with them), who is told (notices), and what it counted (the figures and the impact summary). Claims are not
 * written: their staleness is their pin against the decision's fingerprint.
 */
export function applyPropagation(
  ctx: Ctx,
  decision: ChangedDecision,
  from: string,
  to: string,
  reason: string,
  actorId: number | null,
  at: string,
): PropagationResult {
  const pins = { decisionId: decision.id, from, to, last: ctx.store.reports.lastId() }
  const mode = workspaceSettings(ctx).followUps
  const { follow, hits } = moveWork(ctx, decision, pins, mode, at)
  const { recipients, noticeIds, side } = notify(ctx, decision, pins, reason, actorId, hits, at)
  const impact = count(ctx, decision, pins, reason, mode, { hits, follow, recipients, noticeIds, side })
  return { impact, noticeIds, merged: follow.behind, changedTasks: follow.changed }
}

/** The work the change moves: the merged tasks' follow-ups, then the dependent tasks flagged, the edit recorded. */
function moveWork(ctx: Ctx, decision: ChangedDecision, pins: EditPins, mode: FollowUpMode, at: string) {
  const { store } = ctx
  // First the merged tasks' follow-ups: one cancelled here as obsolete is then left alone by the flagging.
  const follow = applyFollowUps(ctx, decision, pins.to, mode, at)
  const flagged = store.tasks.flagDependents(decision.id, pins.to, at)
  store.decisions.insertImpact(
    {
      decision_id: decision.id,
      version: decision.version,
      from_fingerprint: pins.from,
      to_fingerprint: pins.to,
      last_report_id: pins.last,
    },
    flagged,
  )
  return { follow, hits: flagged.rows.map(hitOf) }
}

type Hit = ReturnType<typeof hitOf>

/** Who is told: the assignees of the flagged tasks (in member order), then the authors of the reports left behind. */
function notify(
  ctx: Ctx,
  decision: ChangedDecision,
  pins: EditPins,
  reason: string,
  actorId: number | null,
  hits: Hit[],
  at: string,
) {
  const recipients = new Map<number, Recipient>()
  const recipient = (m: number) => {
    let r = recipients.get(m)
    if (!r) recipients.set(m, (r = { tasks: [], reports: 0 }))
    return r
  }
  const told = new Map<number, Recipient['tasks']>()
  for (const t of hits) {
    if (t.assigneeId !== null && t.assigneeId !== actorId && notifiedOnChange.includes(t.oldStatus)) {
      const tasks = told.get(t.assigneeId)
      if (tasks) tasks.push({ id: t.id, flag: t.flag })
      else told.set(t.assigneeId, [{ id: t.id, flag: t.flag }])
    }
  }
  for (const m of [...told.keys()].sort((a, b) => a - b)) recipient(m).tasks = told.get(m)!
  const side = reportSide(ctx, pins, actorId, recipient)
  const noticeIds: number[] = []
  for (const [memberId, hit] of recipients) {
    noticeIds.push(
      ctx.store.log.insertNotice({
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
  return { recipients, noticeIds, side }
}

/** What the change counted: the workspace's figures, and the impact summary the edit answers with. */
function count(
  ctx: Ctx,
  decision: ChangedDecision,
  pins: EditPins,
  reason: string,
  mode: FollowUpMode,
  done: {
    hits: Hit[]
    follow: FollowUpOutcome
    recipients: Map<number, Recipient>
    noticeIds: number[]
    side: ReturnType<typeof reportSide>
  },
): Impact {
  const { hits, follow, recipients, noticeIds, side } = done
  const byFlag: Record<TaskFlagValue, number> = {
    requirements_updated: 0,
    needs_adjustment: 0,
    needs_reverification: 0,
  }
  let acceptanceRevoked = 0
  for (const t of hits) {
    byFlag[t.flag]++
    if (t.oldStatus === 'accepted') acceptanceRevoked++
  }
  ctx.store.log.bumpMany({
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
  const followUps = follow.created
  return finishSummary(
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
}
