/**
 * The policy of automatic turns (issue 13): who Concord wakes for a change, with what message, keyed by what trigger.
 * The runtime carries the wakes out (runtime/auto-turns.ts: when, one at a time); the claims and queued steps are
 * auto-turn-queue.ts. Triggers, and only these:
 * - a notice for a member whose task in progress or delivered is flagged (adjust and acknowledge / re-verify);
 * - a delivery (or a change with no one left to adjust) that leaves a member's report stale (re-verify and report);
 * - with autoDeliver, a passing implementation report by the assignee delivers its task on the report's commit;
 * - with autoChecks, a delivery asks the tester and reviewer for the checks the task requires and lacks (the
 *   message the card's Ask would send: readiness's action, its one home).
 * Each trigger is keyed by what caused it (task + decision version, or task + delivered commit + versions).
 */
import type { NoticeSummary, Report, Task } from '../../../../shared/schemas'
import type { Ctx } from '../context'
import { makeKey, parseId } from '../ids'
import { readinessOfTask } from '../mappers'
import type { TaskRow } from '../rows'
import { workspaceSettings } from '../workspace/workspace-settings'
import { canWork, workspaceOpen } from './auto-turn-queue'

/** A member Concord wakes: its turn's task, the trigger that keys it once, and the lines of its message. */
export interface Wake {
  memberRowId: number
  taskRowId: number
  trigger: string
  lines: string[]
  /** A flag turn: owed to a member in a turn only if that turn never reads this notice (see noticeRead). */
  noticeRowId?: number
}

/** Tasks of a notice read at a time; reports of a notice's scan read at a time. */
const TASK_PAGE = 100
const REPORT_PAGE = 50

const short = (sha: string | null) => (sha ? sha.slice(0, 7) : 'its delivered artifact')

/** The workspace's ctx when its automatic turns are on (or when `setting` is), else null. */
export function autoCtx(
  ctxOf: (wsId: string) => Ctx,
  wsId: string,
  setting: 'autoTurns' | 'autoChecks' | 'autoDeliver' = 'autoTurns',
): Ctx | null {
  try {
    const ctx = ctxOf(wsId)
    return workspaceSettings(ctx)[setting] ? ctx : null
  } catch {
    return null // a workspace closed or removed meanwhile
  }
}

/**
 * What a notice wakes, a unit of work at a time (empty: a pause between pages): its member's flagged tasks (flag turns),
 * then the stale reports of the delivered tasks it names, once settled (staleWakes).
 */
export function* noticeWakes(ctx: Ctx, notice: NoticeSummary): Generator<Wake[], void, void> {
  const memberRow = parseId(notice.memberId, 'member', 'memberId').n
  const noticeRowId = parseId(notice.id, 'notice', 'noticeId').n
  // The event names only the first tasks and reports: every one of them is in the stored notice.
  const row = ctx.store.log.notice(noticeRowId)
  if (!row) return
  const taskRows = JSON.parse(row.task_ids) as number[]
  const dk = makeKey('decision', parseId(notice.decisionId, 'decision', 'decisionId').n)
  const head = `${dk} changed (now v${notice.decisionVersion})`
  const member = ctx.store.members.get(memberRow)
  // A member that cannot take a turn (no model, archived) gets none: neither its tasks nor its reports are read.
  // Every other author whose report the edit left behind has a notice of its own, and its own scan.
  if (!member || !canWork(member)) return
  const trigger = (taskRowId: number) => `flag:${taskRowId}:${notice.decisionId}:v${notice.decisionVersion}`
  for (let i = 0; i < taskRows.length; i += TASK_PAGE) {
    for (const task of ctx.store.tasks.getMany(taskRows.slice(i, i + TASK_PAGE))) {
      if (task.assignee_id !== memberRow) continue
      const lines = flagLines(task, head)
      if (lines) yield [{ memberRowId: memberRow, taskRowId: task.id, trigger: trigger(task.id), lines, noticeRowId }]
    }
    // Concord is closing: what is left waits for the next start (the notice is still pending).
    if (!workspaceOpen(ctx)) return
  }
  // Its stale reports: re-verified now only where no one has an adjustment to make first (see staleWakes).
  // A slice of reports at a time (one edit can stale 10,000 reports), once per task: each task's acceptance check
  // reads its reports, so a large edit never holds streaming or other requests behind it.
  if (ctx.store.log.reportCount(row) === 0) return
  const seen = new Set<number>()
  // A slice is the reports after the last one read (the notice's list, or derived from its edit a page at a time).
  for (let after = 0; ;) {
    if (!workspaceOpen(ctx)) return
    const slice = ctx.store.log.reportIds(row, after, REPORT_PAGE)
    const tasks = ctx.store.reports
      .heads(slice)
      .map((h) => h.task_id)
      .filter((t) => !seen.has(t) && seen.add(t))
    for (const task of ctx.store.tasks.getMany([...new Set(tasks)])) {
      if (task.status !== 'delivered') continue
      if (!workspaceOpen(ctx)) return
      yield staleWakes(ctx, task, head)
    }
    if (slice.length < REPORT_PAGE) return
    after = slice.at(-1)!
    yield []
  }
}

/** The message of a flag turn for the assignee's task, or null when the task is not flagged for it. */
function flagLines(task: TaskRow, head: string): string[] | null {
  const tk = makeKey('task', task.id)
  if (task.status === 'in_progress' && task.flag === 'needs_adjustment')
    return [
      head,
      `${tk} is in progress and needs adjustment: read the notice in your brief, adjust your work to the current decisions, commit, then acknowledge ${tk}.`,
    ]
  if (task.status === 'delivered' && task.flag === 'needs_reverification')
    return [
      head,
      `${tk} was delivered on ${short(task.artifact_commit)} and needs re-verification: check it against the current decisions. If it no longer holds, move it back to in progress, adjust, commit, acknowledge ${tk} and submit an implementation report on the new commit; otherwise acknowledge it and report.`,
    ]
  return null
}

/** The busy member's turn ended: a deferred flag turn is still owed when it did not read the notice. */
export function noticeUnread(ctx: Ctx, noticeRowId: number): boolean {
  return ctx.store.log.notice(noticeRowId)?.delivered_at === null
}

/** A delivered task: the checks it lacks are asked for (autoChecks), then its stale reports re-verified. */
export function deliveryWakes(ctxOf: (wsId: string) => Ctx, t: Task): { ctx: Ctx; wakes: Wake[] }[] {
  if (t.status !== 'delivered') return []
  const checks = autoCtx(ctxOf, t.workspaceId, 'autoChecks')
  const out = checks ? [{ ctx: checks, wakes: checkWakes(checks, t) }] : []
  const ctx = autoCtx(ctxOf, t.workspaceId)
  const task = ctx?.store.tasks.get(parseId(t.id, 'task', 'taskId').n)
  if (ctx && task)
    out.push({
      ctx,
      wakes: staleWakes(ctx, task, `${makeKey('task', task.id)} was delivered on ${short(task.artifact_commit)}`),
    })
  return out
}

/**
 * autoChecks: each required report the delivered task has none of is asked of the member readiness names for it
 * (its action: who, and the text the card's Ask sends), once per task, kind and delivered artifact.
 */
function checkWakes(ctx: Ctx, t: Task): Wake[] {
  const task = ctx.store.tasks.get(parseId(t.id, 'task', 'taskId').n)
  if (!task || task.status !== 'delivered') return []
  const wakes: Wake[] = []
  for (const r of readinessOfTask(ctx.wsId, ctx.store, task).reasons) {
    if (r.code !== 'evidence_missing' || r.reportId !== null || !r.action?.memberId) continue
    const memberRow = parseId(r.action.memberId, 'member', 'memberId').n
    // The assignee checking its own work is no check: the card asks the human to pick who.
    if (memberRow === task.assignee_id) continue
    const artifact = task.artifact_commit ?? task.artifact_digest
    wakes.push({
      memberRowId: memberRow,
      taskRowId: task.id,
      trigger: `check:${task.id}:${r.reportKind}:${artifact}`,
      lines: [r.action.text],
    })
  }
  return wakes
}

/**
 * The authors of the task's required reports that no longer support it re-verify the delivered artifact, once it
 * is settled: delivered, and re-aligned by its assignee (before that they would check a commit about to change).
 */
function staleWakes(ctx: Ctx, task: TaskRow, head: string): Wake[] {
  if (task.status !== 'delivered') return []
  const links = ctx.store.tasks.links(task.id)
  // Until its assignee has re-aligned it (acknowledged: links re-pinned), the delivered commit may still change.
  if (task.assignee_id !== null && links.some((l) => l.pinned_fingerprint !== l.current_fingerprint)) return []
  const byReport = new Map<number, string[]>()
  for (const r of readinessOfTask(ctx.wsId, ctx.store, task).reasons) {
    if (r.code !== 'evidence_stale' || !r.reportId) continue
    const n = parseId(r.reportId, 'report', 'reportId').n
    byReport.set(n, [...(byReport.get(n) ?? []), r.message])
  }
  const tk = makeKey('task', task.id)
  const versions = links.map((l) => `${l.decision_id}v${l.current_version}`).join(',')
  const wakes: Wake[] = []
  for (const [n, messages] of byReport) {
    const report = ctx.store.reports.get(n)!
    // The human's own report is theirs to redo; the assignee's own is part of its re-alignment.
    if (report.author_id === null || (report.author_id === task.assignee_id && report.kind === 'implementation'))
      continue
    const rk = makeKey('report', n)
    wakes.push({
      memberRowId: report.author_id,
      taskRowId: task.id,
      trigger: `stale:${task.id}:${n}:${task.artifact_commit ?? task.artifact_digest}:${versions}`,
      lines: [
        head,
        `Your ${rk} (${report.kind}) no longer supports ${tk}: ${messages.join('; ')}. Re-verify ${tk} on ${short(task.artifact_commit)} against the current decisions and submit a new ${report.kind} report.`,
      ],
    })
  }
  return wakes
}

/**
 * autoDeliver: a report that makes its task offer a delivery (readiness's deliverOn: the assignee's passing
 * implementation report on a commit, still current) is delivered there, as the card's button would: the commit, or
 * null when there is nothing to deliver.
 */
export function autoDelivery(ctxOf: (wsId: string) => Ctx, report: Report): { ctx: Ctx; commit: string } | null {
  if (report.kind !== 'implementation') return null
  const ctx = autoCtx(ctxOf, report.workspaceId, 'autoDeliver')
  if (!ctx) return null
  const task = ctx.store.tasks.get(parseId(report.taskId, 'task', 'taskId').n)
  const offer = task && readinessOfTask(ctx.wsId, ctx.store, task).deliverOn
  if (!task || offer?.reportId !== report.id) return null
  return { ctx, commit: offer.commit }
}
