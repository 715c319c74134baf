/**
 * What a change to a decision's normative content does to the work that depends on it (DESIGN §2).
 * Runs inside the caller's transaction; reads and writes only the rows linked to the decision.
 */
import type { Impact, ImpactReport, ImpactTask } from '../../../shared/schemas'
import type { TaskFlagValue, TaskStatusValue } from '../store/tasks-repo'
import type { Ctx } from './context'
import { makeId, makeKey } from './ids'

/** The flag a task gets when a decision it depends on changes; a stronger flag it already has is kept. */
export function flagFor(status: TaskStatusValue, current: TaskFlagValue | null): TaskFlagValue {
  if (status === 'delivered' || status === 'accepted' || current === 'needs_reverification') return 'needs_reverification'
  if (status === 'in_progress' || current === 'needs_adjustment') return 'needs_adjustment'
  return 'requirements_updated'
}

/** Statuses whose assignee is told at once; a todo task's assignee reads the new requirement when it starts. */
const notifiedStatuses: ReadonlySet<TaskStatusValue> = new Set(['in_progress', 'delivered', 'accepted'])

interface TaskHit {
  id: number
  oldStatus: TaskStatusValue
  status: TaskStatusValue
  flag: TaskFlagValue
  assigneeId: number | null
}

interface Collected {
  tasks: TaskHit[]
  decisionId: number
  from: string
  to: string
}

export interface PropagationResult {
  impact: Impact
  noticeIds: number[]
}

/** Preview: what `apply` would do for a change from the decision's current content to `toFingerprint`. Writes nothing. */
export function previewPropagation(ctx: Ctx, decisionId: number, fromFingerprint: string, toFingerprint: string, actorId: number | null): Impact {
  const tasks = ctx.store.tasks.dependentsNotAt(decisionId, toFingerprint).map((t) => ({
    id: t.id,
    oldStatus: t.status,
    status: t.status === 'accepted' ? ('delivered' as const) : t.status,
    flag: flagFor(t.status, t.flag),
    assigneeId: t.assignee_id,
  }))
  return buildImpact(ctx, { tasks, decisionId, from: fromFingerprint, to: toFingerprint }, actorId).impact
}

/** Applies a normative change whose fingerprint went from → to: flags tasks, stales claims, queues notices, counts. */
export function applyPropagation(
  ctx: Ctx,
  decision: { id: number; version: number; title: string; statement: string },
  from: string,
  to: string,
  reason: string,
  actorId: number | null,
  at: string,
): PropagationResult {
  const { store } = ctx
  const tasks = store.tasks.flagDependents(decision.id, to, at).map((t) => ({
    id: t.id,
    oldStatus: t.old_status,
    status: t.status,
    flag: t.flag,
    assigneeId: t.assignee_id,
  }))
  const { impact, claimCountOfReports, staleClaims, recipients } = buildImpact(ctx, { tasks, decisionId: decision.id, from, to }, actorId)

  const noticeIds: number[] = []
  for (const [memberId, hit] of recipients) {
    noticeIds.push(
      store.log.insertNotice({
        member_id: memberId,
        kind: 'decision_changed',
        decision_id: decision.id,
        decision_version: decision.version,
        task_ids: JSON.stringify(hit.tasks.map((t) => t.id)),
        report_ids: JSON.stringify(hit.reports.map((r) => r.id)),
        text: noticeText(decision, reason, hit),
        created_at: at,
      }),
    )
  }

  const log = store.log
  const flagged: Record<TaskFlagValue, number> = { requirements_updated: 0, needs_adjustment: 0, needs_reverification: 0 }
  let revoked = 0
  for (const t of tasks) {
    flagged[t.flag]++
    if (t.oldStatus === 'accepted') revoked++
  }
  for (const [flag, n] of Object.entries(flagged)) log.bump(`tasks_flagged.${flag}`, n)
  log.bump('acceptances_revoked', revoked)
  log.bump('notices_sent', noticeIds.length)
  log.bump('claims.made_stale', staleClaims)
  log.bump('claims.kept_valid', Math.max(0, claimCountOfReports - staleClaims))
  return { impact, noticeIds }
}

interface Recipient {
  tasks: TaskHit[]
  reports: { id: number; staleClaims: number }[]
}

function buildImpact(ctx: Ctx, c: Collected, actorId: number | null) {
  const decisionId = c.decisionId
  const ws = ctx.wsId
  // Thousands of tasks and reports share a few members: build each member id once.
  const memberIds = new Map<number, string>()
  const memberId = (n: number) => {
    let id = memberIds.get(n)
    if (id === undefined) memberIds.set(n, (id = makeId(ws, 'member', n)))
    return id
  }
  const impactTasks: ImpactTask[] = c.tasks.map((t) => ({
    taskId: makeId(ws, 'task', t.id),
    key: makeKey('task', t.id),
    status: t.status,
    flag: t.flag,
    assigneeId: t.assigneeId === null ? null : memberId(t.assigneeId),
    acceptanceRevoked: t.oldStatus === 'accepted',
  }))

  const recipients = new Map<number, Recipient>()
  const recipient = (memberId: number) => {
    let r = recipients.get(memberId)
    if (!r) recipients.set(memberId, (r = { tasks: [], reports: [] }))
    return r
  }
  for (const t of c.tasks) {
    if (t.assigneeId !== null && t.assigneeId !== actorId && notifiedStatuses.has(t.oldStatus)) recipient(t.assigneeId).tasks.push(t)
  }

  let claimCountOfReports = 0
  let staleClaims = 0
  // Thousands of reports share a few tasks: build each task id once.
  const taskIds = new Map<number, string>()
  const reportPrefix = `${ws}-r`
  // The reports the change leaves behind (claims or basis), built straight from the store's range reads.
  const impactReports = ctx.store.reports.touchedBy<ImpactReport>(decisionId, c.from, c.to, `${ws}-c`, (id, taskId, authorId, claimCount, staleClaimIds) => {
    claimCountOfReports += claimCount
    staleClaims += staleClaimIds.length
    if (authorId !== null && authorId !== actorId) recipient(authorId).reports.push({ id, staleClaims: staleClaimIds.length })
    let task = taskIds.get(taskId)
    if (task === undefined) taskIds.set(taskId, (task = makeId(ws, 'task', taskId)))
    return { reportId: `${reportPrefix}${id}`, key: `R-${id}`, taskId: task, authorId: authorId === null ? null : memberId(authorId), staleClaimIds }
  })

  const impact: Impact = {
    decisionId: makeId(ws, 'decision', decisionId),
    normative: true,
    tasks: impactTasks,
    reports: impactReports,
    notifiedMemberIds: [...recipients.keys()].sort((a, b) => a - b).map((m) => makeId(ws, 'member', m)),
  }
  return { impact, claimCountOfReports, staleClaims, recipients }
}

const flagWords: Record<TaskFlagValue, string> = {
  requirements_updated: 'requirements updated',
  needs_adjustment: 'needs adjustment',
  needs_reverification: 'needs re-verification',
}

function listSome<T>(items: T[], show: (t: T) => string, max = 8): string {
  const head = items.slice(0, max).map(show).join(', ')
  return items.length > max ? `${head} and ${items.length - max} more` : head
}

function noticeText(d: { id: number; version: number; title: string; statement: string }, reason: string, hit: Recipient): string {
  const lines = [`${makeKey('decision', d.id)} "${d.title}" changed (now v${d.version})${reason ? `: ${reason}` : ''}.`]
  lines.push(`Current statement: ${d.statement}`)
  if (hit.tasks.length) lines.push(`Your tasks: ${listSome(hit.tasks, (t) => `${makeKey('task', t.id)} (${flagWords[t.flag]})`)}.`)
  if (hit.reports.length) {
    lines.push(`Your reports with stale evidence: ${listSome(hit.reports, (r) => `${makeKey('report', r.id)} (${r.staleClaims} claim${r.staleClaims === 1 ? '' : 's'} stale)`)}.`)
  }
  return lines.join('\n')
}

export function emptyImpact(ws: string, decisionId: number): Impact {
  return { decisionId: makeId(ws, 'decision', decisionId), normative: false, tasks: [], reports: [], notifiedMemberIds: [] }
}
