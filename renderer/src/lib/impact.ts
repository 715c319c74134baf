import type { Impact, Member } from '../../../shared/schemas'
import { taskStatusWords } from '../../../shared/task-rules'

// The words live in shared/task-rules.ts; re-exported for the files that import them from here.
export { taskStatusWords } from '../../../shared/task-rules'
const statusWords = taskStatusWords

/** How many tasks and how many reports the sentence names; the rest are counted. */
const NAMED = 8

/** The first few named, then "and 992 more tasks" from the edit's counts (the summary lists only the first ones). */
function named<T>(items: T[], total: number, show: (t: T) => string, noun: string): string[] {
  const shown = items.slice(0, NAMED).map(show)
  const rest = total - shown.length
  return rest > 0 ? [...shown, `and ${rest.toLocaleString('en')} more ${noun}${rest === 1 ? '' : 's'}`] : shown
}

/** What the edit does to merged tasks' follow-ups: made or offered, and made obsolete (cancelled or offered). */
export function followUpSentences(impact: Impact): string {
  return [...(impact.mergedTasks ?? []), ...(impact.obsoleteFollowUps ?? [])].map((m) => `${m.text}.`).join(' ')
}

/**
 * The impact preview in a sentence, as the design puts it:
 * "flags T-2 in progress by Implementer, T-3 delivered; stales 2 claims in R-4". A large edit names the first few
 * tasks and reports and counts the others ("and 992 more tasks").
 */
export function describeImpact(impact: Impact, members: Record<string, Member>): string {
  if (!impact.normative) return 'Editorial: no task or report is affected.'
  const tasks = named(
    impact.tasks,
    Math.max(impact.counts.tasks, impact.tasks.length),
    (t) => {
      const assignee = t.assigneeId ? members[t.assigneeId] : undefined
      const who = assignee ? ` by ${assignee.name}` : ''
      return `${t.key} ${statusWords[t.status]}${who}${t.acceptanceRevoked ? ' (acceptance revoked)' : ''}`
    },
    'task',
  )
  const stale = impact.reports.filter((r) => r.staleClaimIds.length)
  // Reports beyond the summary's list are counted, not read: each lost evidence unless the edit restored it.
  const unlisted = impact.truncated ? Math.max(0, impact.counts.reports - impact.reports.length) : 0
  const reports = named(
    stale,
    stale.length + unlisted,
    (r) => `${r.staleClaimIds.length} claim${r.staleClaimIds.length === 1 ? '' : 's'} in ${r.key}`,
    'report',
  )
  const parts: string[] = []
  if (tasks.length) parts.push(`flags ${tasks.join(', ')}`)
  if (reports.length) parts.push(`stales ${reports.join(', ')}`)
  // A merged task stays merged: the edit makes a follow-up task instead of reopening it.
  const merged = followUpSentences(impact)
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
