import type { Impact, Member, Task } from '../../../shared/schemas'

const statusWords: Record<Task['status'], string> = {
  todo: 'to do',
  in_progress: 'in progress',
  delivered: 'delivered',
  accepted: 'accepted',
  blocked: 'blocked',
  cancelled: 'cancelled',
}

export const flagWords: Record<NonNullable<Task['flag']>, string> = {
  requirements_updated: 'requirements updated',
  needs_adjustment: 'needs adjustment',
  needs_reverification: 'needs re-verification',
}

export const taskStatusWords = statusWords

/**
 * The impact preview in a sentence, as the design puts it:
 * "flags T-2 in progress by Implementer, T-3 delivered; stales 2 claims in R-4".
 */
export function describeImpact(impact: Impact, members: Record<string, Member>): string {
  if (!impact.normative) return 'Editorial: no task or report is affected.'
  const tasks = impact.tasks.map((t) => {
    const who = t.assigneeId && members[t.assigneeId] ? ` by ${members[t.assigneeId].name}` : ''
    return `${t.key} ${statusWords[t.status]}${who}${t.acceptanceRevoked ? ' (acceptance revoked)' : ''}`
  })
  const reports = impact.reports.filter((r) => r.staleClaimIds.length).map((r) => `${r.staleClaimIds.length} claim${r.staleClaimIds.length === 1 ? '' : 's'} in ${r.key}`)
  const parts: string[] = []
  if (tasks.length) parts.push(`flags ${tasks.join(', ')}`)
  if (reports.length) parts.push(`stales ${reports.join(', ')}`)
  if (!parts.length) return 'No task or report depends on this decision yet.'
  const text = parts.join('; ')
  const notified = impact.notifiedMemberIds.map((id) => members[id]?.name).filter(Boolean)
  return text[0].toUpperCase() + text.slice(1) + (notified.length ? `. Notifies ${notified.join(', ')}.` : '.')
}
