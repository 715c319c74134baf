/**
 * The text of a decision_changed notice: the change in one sentence, the statement now, and the recipient's tasks and
 * reports it concerns (read by the member at its next step, and by the brief).
 */
import { taskFlagWords as flagWords } from '../../../../shared/task-rules'
import type { TaskFlagValue } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { makeKey } from '../ids'
import type { EditPins } from '../reports/touched-reports'

/** What a notice tells one member: their tasks the change flagged, and how many of their reports it leaves behind. */
export interface Recipient {
  tasks: { id: number; flag: TaskFlagValue }[]
  /** How many of its reports the edit leaves behind (a claim made stale or its basis made suspect). */
  reports: number
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

export function noticeText(
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
    const first = ctx.store.reportPins.authorPins(pins.decisionId, pins.from, memberId, 0, pins.last, NOTICE_LIST)
    const stale = ctx.store.reportPins.pinnedClaimCounts(pins.decisionId, pins.from, first)
    lines.push(
      `Your reports with stale evidence: ${listSome(first, hit.reports, (id) => {
        const n = stale.get(id) ?? 0
        return `${makeKey('report', id)} (${n} claim${n === 1 ? '' : 's'} stale)`
      })}.`,
    )
  }
  return lines.join('\n')
}
