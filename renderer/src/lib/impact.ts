import type { Impact, Member } from '../../../shared/schemas'
import { taskStatusWords } from '../../../shared/task-rules'

// The words live in shared/task-rules.ts; re-exported for the files that import them from here.
export { taskStatusWords } from '../../../shared/task-rules'
const statusWords = taskStatusWords

/**
 * The impact preview in a sentence, as the design puts it:
 * "flags T-2 in progress by Implementer, T-3 delivered; stales 2 claims in R-4".
 */
export function describeImpact(impact: Impact, members: Record<string, Member>): string {
  if (!impact.normative) return 'Editorial: no task or report is affected.'
  const tasks = impact.tasks.map((t) => {
    const assignee = t.assigneeId ? members[t.assigneeId] : undefined
    const who = assignee ? ` by ${assignee.name}` : ''
    return `${t.key} ${statusWords[t.status]}${who}${t.acceptanceRevoked ? ' (acceptance revoked)' : ''}`
  })
  const reports = impact.reports
    .filter((r) => r.staleClaimIds.length)
    .map((r) => `${r.staleClaimIds.length} claim${r.staleClaimIds.length === 1 ? '' : 's'} in ${r.key}`)
  const parts: string[] = []
  if (tasks.length) parts.push(`flags ${tasks.join(', ')}`)
  if (reports.length) parts.push(`stales ${reports.join(', ')}`)
  // A merged task stays merged: the edit makes a follow-up task instead of reopening it.
  const merged = (impact.mergedTasks ?? []).map((m) => `${m.text}.`).join(' ')
  if (!parts.length) return merged || 'No task or report depends on this decision yet.'
  const text = parts.join('; ')
  const notified = impact.notifiedMemberIds.map((id) => members[id]?.name).filter(Boolean)
  return (
    text.charAt(0).toUpperCase() +
    text.slice(1) +
    (notified.length ? `. Notifies ${notified.join(', ')}.` : '.') +
    (merged ? ` ${merged}` : '')
  )
}
