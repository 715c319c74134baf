/**
 * Who a queued merge waits for (merge-queue.ts): the members whose report it lacks on the updated head are asked for
 * it by an automatic turn, and the queue's words name them.
 */
import type { TaskRow } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { makeKey, parseId } from '../ids'
import type { readinessOfTask } from '../mappers'
import type { QueueTurn } from './task-update'

export const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : '?')

/**
 * The members whose report the queued merge waits for get their automatic turn on the updated head, whatever the
 * autoTurns setting (the user's Merge asked for it). A stale report's author gets it under the trigger the automatic
 * turns use for a stale report (auto-turns.ts staleAuthors), so one change never starts two turns.
 */
export function askVerifiers(
  ctx: Ctx,
  task: TaskRow,
  reasons: ReturnType<typeof readinessOfTask>['reasons'],
  queueTurn: QueueTurn | undefined,
): void {
  if (!queueTurn) return
  const tk = makeKey('task', task.id)
  const links = ctx.store.tasks.links(task.id)
  const versions = links.map((l) => `${l.decision_id}v${l.current_version}`).join(',')
  for (const r of reasons) {
    if (!r.reportKind || !r.action?.memberId) continue
    const member = parseId(r.action.memberId, 'member', 'memberId').n
    if (r.code === 'evidence_stale' && r.reportId) {
      const n = parseId(r.reportId, 'report', 'reportId').n
      const report = ctx.store.reports.get(n)
      if (!report || report.author_id === null) continue
      queueTurn(ctx.wsId, report.author_id, task.id, `stale:${task.id}:${n}:${task.artifact_commit}:${versions}`, [
        `${tk} is queued to merge, and its branch was brought up to date with the base: its head is now ${short(task.artifact_commit)}.`,
        `Your ${makeKey('report', n)} (${report.kind}) no longer supports ${tk}: ${r.message}. Re-verify ${tk} on ${short(task.artifact_commit)} and submit a new ${report.kind} report; Concord merges it once the evidence passes.`,
      ])
    } else if (r.code === 'evidence_missing' && r.reportId) {
      // A report that fails on the head itself (not one made stale by a new head, whose author re-verifies above):
      // the assignee fixes it, delivers again, and the queue has it verified again.
      if (reasons.some((o) => o.code === 'evidence_stale' && o.reportId === r.reportId)) continue
      const n = parseId(r.reportId, 'report', 'reportId').n
      const report = ctx.store.reports.get(n)
      if (!report || task.assignee_id === null) continue
      const summary = report.summary.trim().split('\n')[0]!.slice(0, 300)
      queueTurn(ctx.wsId, task.assignee_id, task.id, `fix:${task.id}:${n}`, [
        `${tk} is queued to merge, and ${authorName(ctx, r.reportId)}'s ${report.kind} report ${makeKey('report', n)} on ${short(report.artifact_commit)} fails: ${summary}`,
        `Fix ${tk} in your tree, commit, and deliver it again (update_task_status delivered); Concord has it verified again and merges it once the evidence passes.`,
      ])
    } else if (r.code === 'evidence_missing' && !r.reportId) {
      queueTurn(ctx.wsId, member, task.id, `verify:${task.id}:${task.artifact_commit}:${r.reportKind}`, [
        `${tk} is queued to merge on ${short(task.artifact_commit)}, and it has no ${r.reportKind} report there.`,
        `Check ${tk} on ${short(task.artifact_commit)} and submit a ${r.reportKind} report; Concord merges it once the evidence passes.`,
      ])
    }
  }
}

/** The name of a report's author, for the queue's words. */
export function authorName(ctx: Ctx, reportId: string): string {
  const report = ctx.store.reports.get(parseId(reportId, 'report', 'reportId').n)
  const author = report?.author_id == null ? undefined : ctx.store.members.get(report.author_id)
  return author?.name ?? 'a member'
}
