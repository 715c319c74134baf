/**
 * An external agent hears of a notice at its next Concord tool call (concord mcp appends it), else once its turn
 * ends (acpEngine's after); Concord's own loop at its next model call, after the running command. With "interrupt
 * and re-prompt", a task of its flagged needs_adjustment stops an external agent's turn now, and Concord's loop's
 * running step (its command, its model stream) for a task in progress: that turn goes on, re-planning with the notice.
 */
import type { NoticeSummary } from '../../../shared/schemas'
import type { Harness } from '../harness/harness'
import { parseId } from '../harness/ids'
import { interruptForNotice } from './agent-loop'
import type { MemberHost } from './member-host'

export function noticeMidTurn(harness: Harness, host: MemberHost, notice: NoticeSummary): void {
  if (!host.abort) return
  const ctx = harness.ctx(host.wsId)
  const member = ctx.store.members.get(host.memberRowId)
  if (!member?.agent_interrupt) return
  // The event names the first tasks only; the stored notice has them all.
  const all =
    notice.taskCount > notice.taskIds.length
      ? ctx.store.log.notice(parseId(notice.id, 'notice', 'noticeId').n)
      : undefined
  const taskRows = all
    ? (JSON.parse(all.task_ids) as number[])
    : notice.taskIds.map((id) => parseId(id, 'task', 'taskId').n)
  const flagged = taskRows.map((n) => ctx.store.tasks.get(n)).filter((t) => t?.flag === 'needs_adjustment')
  if (member.agent) {
    if (flagged.length) host.interrupt('notice')
  } else if (flagged.some((t) => t?.status === 'in_progress'))
    interruptForNotice(host, parseId(notice.decisionId, 'decision', 'decisionId').n)
}
