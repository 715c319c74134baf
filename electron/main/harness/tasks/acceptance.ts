import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { AcceptanceAction, AcceptanceReason, Report, Task, TaskReadiness } from '../../../../shared/schemas'
import type { MemberRow } from '../../store/members-repo'
import type { ReportRow } from '../../store/reports-repo'
import type { TaskRow } from '../../store/tasks-repo'
import { actorOf, requireDecider, type Ctx } from '../context'
import { makeId, makeKey, now } from '../ids'
import { toReport, toTask } from '../mappers'
import { taskRow } from './tasks'

const short = (sha: string) => sha.slice(0, 10)

function artifactText(a: { commit: string | null; digest: string | null }): string {
  return a.commit ? `commit ${short(a.commit)}` : `digest ${a.digest}`
}

function sameArtifact(task: TaskRow, r: { commit: string | null; digest: string | null }): boolean {
  const commitOk = task.artifact_commit ? r.commit !== null && r.commit === task.artifact_commit : true
  const digestOk = task.artifact_digest ? r.digest !== null && r.digest === task.artifact_digest : true
  const overlap = (task.artifact_commit && r.commit) || (task.artifact_digest && r.digest)
  return Boolean(overlap) && commitOk && digestOk
}

type Kind = NonNullable<AcceptanceReason['reportKind']>

/** Who writes a report of this kind when none is in: the assignee implements; a tester tests, a reviewer reviews (not the assignee). */
function memberFor(ctx: Ctx, task: TaskRow, kind: Kind): MemberRow | null {
  if (kind === 'implementation')
    return task.assignee_id === null ? null : (ctx.store.members.get(task.assignee_id) ?? null)
  const role = kind === 'test' ? /test|qa|verif/i : /review/i
  const fits = ctx.store.members.list().filter((m) => role.test(m.role) || role.test(m.name))
  return fits.find((m) => m.id !== task.assignee_id) ?? fits[0] ?? null
}

const kindWords: Record<Kind, string> = {
  implementation: 'an implementation report',
  test: 'a test report',
  review: 'a review',
}

/** The prefilled message that resolves one reason, to the member who can act on it. */
function actionFor(
  ctx: Ctx,
  task: TaskRow,
  kind: Kind,
  report: ReportRow | null,
  why: 'missing' | 'failed' | 'stale',
  message: string,
): AcceptanceAction {
  const tk = makeKey('task', task.id)
  const commit = task.artifact_commit
  const on = commit ? ` on ${commit.slice(0, 7)}` : ''
  const author = report?.author_id != null ? ctx.store.members.get(report.author_id) : undefined
  const assignee = task.assignee_id === null ? undefined : ctx.store.members.get(task.assignee_id)
  // A failed report is for the assignee to fix; a stale one for its author to redo; a missing one for whoever fits.
  const who =
    why === 'failed'
      ? (assignee ?? author ?? null)
      : why === 'stale'
        ? (author ?? memberFor(ctx, task, kind))
        : memberFor(ctx, task, kind)
  const name = who?.name ?? 'a member'
  const label =
    why === 'stale'
      ? `Ask ${name} to re-verify ${tk}${on}`
      : why === 'failed'
        ? `Ask ${name} to fix what ${makeKey('report', report!.id)} found`
        : `Ask ${name} for ${kindWords[kind]}`
  const text =
    why === 'stale'
      ? `Please re-verify ${tk}${on} against the current decisions and submit a new ${kind} report. (${message})`
      : why === 'failed'
        ? `${message}. Please fix ${tk}, then deliver it again.`
        : `Please check ${tk}${on} and submit ${kindWords[kind]} on it.`
  return {
    memberId: who ? makeId(ctx.wsId, 'member', who.id) : null,
    memberName: who?.name ?? null,
    taskId: makeId(ctx.wsId, 'task', task.id),
    commit,
    label,
    text,
  }
}

/** Every reason the task's current evidence cannot support acceptance, each with its action; empty when it can. */
export function acceptanceReasons(ctx: Ctx, task: TaskRow): AcceptanceReason[] {
  const ws = ctx.wsId
  const reasons: AcceptanceReason[] = []
  const tk = makeKey('task', task.id)
  const links = ctx.store.tasks.links(task.id)
  for (const kind of JSON.parse(task.required_reports) as Kind[]) {
    const row = ctx.store.reports.latestOfKind(task.id, kind)
    if (!row) {
      const message = `${tk} has no ${kind} report`
      reasons.push({
        code: 'evidence_missing',
        reportId: null,
        message,
        reportKind: kind,
        action: actionFor(ctx, task, kind, null, 'missing', message),
      })
      continue
    }
    const report = toReport(ws, ctx.store, row)
    const rk = report.key
    const add = (code: AcceptanceReason['code'], message: string) =>
      reasons.push({
        code,
        reportId: report.id,
        message,
        reportKind: kind,
        action: actionFor(ctx, task, kind, row, code === 'evidence_stale' ? 'stale' : 'failed', message),
      })
    if (report.verdict !== 'pass') add('evidence_missing', `${rk} (${kind}) has verdict ${report.verdict}, not pass`)
    if (!sameArtifact(task, report.artifact)) {
      add(
        'evidence_stale',
        `${rk} checked ${artifactText(report.artifact)}; ${tk} is delivered at ${artifactText({ commit: task.artifact_commit, digest: task.artifact_digest })}`,
      )
    }
    for (const message of staleness(ctx, links, report)) add('evidence_stale', message)
  }
  return reasons
}

/** Why a report no longer rests on the current decisions the task depends on (its basis, its claims); empty when it does. */
function staleness(ctx: Ctx, links: ReturnType<Ctx['store']['tasks']['links']>, report: Report): string[] {
  const out: string[] = []
  const rk = report.key
  const basis = new Map(report.basis.map((b) => [b.decisionId, b]))
  for (const l of links) {
    const dk = makeKey('decision', l.decision_id)
    const b = basis.get(makeId(ctx.wsId, 'decision', l.decision_id))
    if (!b) out.push(`${rk} is not based on ${dk}; ${dk} is at v${l.current_version}`)
    else if (b.state !== 'current') out.push(`${rk} is based on ${dk} v${b.version}; ${dk} is at v${l.current_version}`)
  }
  report.claims.forEach((c, i) => {
    if (c.state === 'stale')
      out.push(`${rk} claim ${i + 1} ("${c.text.slice(0, 60)}") is stale: a decision it exercises has changed`)
  })
  return out
}

/**
 * Compare-and-set acceptance: succeeds only if the required reports pass, check the delivered
 * artifact and rest on the current content of every decision the task depends on.
 */
export function acceptTask(ctx: Ctx, p: ParsedParams<'tasks.accept'>): Task {
  const actor = actorOf(ctx, p.actorId)
  requireDecider(actor, 'accept tasks')
  const taskId = taskRow(ctx, p.taskId).id
  const outcome = ctx.store.transaction(() => {
    const task = ctx.store.tasks.get(taskId)!
    const tk = makeKey('task', task.id)
    if (task.status === 'accepted') return { task, reasons: [] as AcceptanceReason[] }
    if (task.status !== 'delivered')
      throw new ApiError('invalid_transition', `${tk} is ${task.status}; only a delivered task can be accepted`)
    const reasons = acceptanceReasons(ctx, task)
    if (reasons.length) {
      ctx.store.log.bump(
        reasons.some((r) => r.code === 'evidence_stale') ? 'acceptances.refused_stale' : 'acceptances.refused_missing',
      )
      return { task, reasons }
    }
    // Accepted on evidence based on the current decisions: the task is aligned with them now.
    ctx.store.tasks.repinLinks(task.id)
    ctx.store.tasks.update({ ...task, status: 'accepted', flag: null, updated_at: now() })
    ctx.store.log.bump('acceptances.accepted')
    ctx.store.log.appendEvent('task.accepted', { taskId: task.id, actorId: actor.memberId }, now())
    return { task: ctx.store.tasks.get(task.id)!, reasons }
  })
  if (outcome.reasons.length) {
    const code = outcome.reasons.some((r) => r.code === 'evidence_stale') ? 'evidence_stale' : 'evidence_missing'
    throw new ApiError(
      code,
      `${makeKey('task', outcome.task.id)} cannot be accepted: ${outcome.reasons.map((r) => r.message).join('; ')}`,
      { reasons: outcome.reasons },
    )
  }
  const task = toTask(ctx.wsId, ctx.store, outcome.task)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return task
}

/** tasks.readiness: one read of what acceptance would say now, plus the delivery a passing implementation report offers. */
export function taskReadiness(ctx: Ctx, taskId: string): TaskReadiness {
  const task = ctx.store.tasks.get(taskRow(ctx, taskId).id)!
  const reasons = task.status === 'accepted' ? [] : acceptanceReasons(ctx, task)
  return {
    taskId: makeId(ctx.wsId, 'task', task.id),
    ready: task.status === 'delivered' && reasons.length === 0,
    reasons,
    deliverOn: deliveryOffer(ctx, task),
  }
}

/**
 * The assignee's latest implementation report, passing, on a commit, and still resting on the current decisions:
 * what an in-progress task can be delivered on (a report a decision change left stale offers nothing).
 */
export function deliveryOffer(ctx: Ctx, task: TaskRow): TaskReadiness['deliverOn'] {
  if (task.status !== 'in_progress' || task.assignee_id === null) return null
  const r = ctx.store.reports.latestOfKind(task.id, 'implementation')
  if (!r || r.verdict !== 'pass' || r.author_id !== task.assignee_id || !r.artifact_commit) return null
  if (staleness(ctx, ctx.store.tasks.links(task.id), toReport(ctx.wsId, ctx.store, r)).length) return null
  return { commit: r.artifact_commit, reportId: makeId(ctx.wsId, 'report', r.id), reportKey: makeKey('report', r.id) }
}
