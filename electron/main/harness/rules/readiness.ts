/**
 * The one home of a task's readiness: what tasks.accept would say of it now (its check, run dry) and the delivery a
 * passing implementation report offers. A rule over rows already read: mappers.ts reads them set-wise for a page of
 * tasks (readinessOfTasks), and the Task DTO, tasks.accept and automatic turns all get their answer from there.
 */
import type { AcceptanceAction, AcceptanceReason, Report, TaskReadiness } from '../../../../shared/schemas'
import type { BaseCheckRow } from '../../store/base-repo'
import type { MemberRow } from '../../store/members-repo'
import type { Evidence } from '../../store/reports-repo'
import type { TaskLinkRow, TaskRow } from '../../store/tasks-repo'
import { makeId, makeKey } from '../ids'

export type ReportKind = NonNullable<AcceptanceReason['reportKind']>

/**
 * A report as the rule reads it: as the API shows it, but for a valid passing report (no claim stale, no basis entry
 * suspect: the store's one rule, ReportsRepo.staleAmong) its claims and summary may be left out, since the rule names
 * only stale claims and counts only a failing report's.
 */
export type EvidenceReport = Pick<Report, 'id' | 'key' | 'verdict' | 'summary' | 'artifact' | 'basis' | 'claims'>

/** What the rule reads of one task: its row, its links, and the newest report of each kind readinessKinds names. */
export interface ReadinessInput {
  task: TaskRow
  links: TaskLinkRow[]
  latest: Map<ReportKind, { row: Evidence['row']; report: EvidenceReport }>
  /** The task's last check against the base branch (harness/workspace/base-moves.ts), if any. */
  base?: BaseCheckRow
  /**
   * Reviews carried over by updates that left the task's own diff unchanged (to_commit → from_commit, see
   * task-update.ts): a review on a commit this chain leads back to from the delivered one still counts.
   */
  carried?: Map<string, string>
  /** Commits an undone turn took off the task's branch (turn-undo.ts): a report on one offers no delivery. */
  undone?: Set<string>
}

/** The workspace's members (archived ones too, by id), for the action each reason offers. */
export interface MemberBook {
  byId: Map<number, MemberRow>
  /** Not archived, in id order: who may be asked for a missing report. */
  active: MemberRow[]
}

/** The report kinds readiness looks at: the required ones of a delivered task, the implementation of one in progress. */
export function readinessKinds(task: Pick<TaskRow, 'status' | 'assignee_id' | 'required_reports'>): ReportKind[] {
  if (task.status === 'delivered') return JSON.parse(task.required_reports) as ReportKind[]
  if (task.status === 'in_progress' && task.assignee_id !== null) return ['implementation']
  return []
}

/**
 * Delivered: ready, or every reason tasks.accept refuses it for (its refusal carries these same reasons). In
 * progress: the delivery on offer. Any other status: nothing (tasks.accept refuses the status itself, and an
 * accepted task is past it). `members` is called only when a reason needs an action.
 */
export function readinessOf(ws: string, input: ReadinessInput, members: () => MemberBook): TaskReadiness {
  const { task } = input
  if (task.status === 'delivered') {
    const reasons = [...acceptanceReasons(ws, input, members), ...baseReasons(ws, input, members)]
    return { ready: reasons.length === 0, reasons, deliverOn: null }
  }
  // Accepted: past acceptance, but a moved base still says why merging it now would land an unchecked tree.
  if (task.status === 'accepted') return { ready: false, reasons: baseReasons(ws, input, members), deliverOn: null }
  return { ready: false, reasons: [], deliverOn: task.status === 'in_progress' ? deliveryOffer(ws, input) : null }
}

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

/**
 * The targeted rule (issue 30): a review on a commit that updates of the task's branch carried to the delivered one
 * (each update changed none of the task's own files: its diff is what was reviewed) still holds. Tests never carry:
 * the tree changed, so what was tested is tested again.
 */
function carriedTo(task: TaskRow, r: { commit: string | null }, carried: Map<string, string> | undefined): boolean {
  if (!carried || !r.commit || !task.artifact_commit || task.artifact_digest) return false
  let c: string | undefined = task.artifact_commit
  for (let i = 0; c && i < 100; i++) {
    c = carried.get(c)
    if (c === r.commit) return true
  }
  return false
}

/** Who writes a report of this kind when none is in: the assignee implements; a tester tests, a reviewer reviews (not the assignee). */
function memberFor(book: MemberBook, task: TaskRow, kind: ReportKind): MemberRow | null {
  if (kind === 'implementation') return task.assignee_id === null ? null : (book.byId.get(task.assignee_id) ?? null)
  const role = kind === 'test' ? /test|qa|verif/i : /review/i
  const fits = book.active.filter((m) => role.test(m.role) || role.test(m.name))
  return fits.find((m) => m.id !== task.assignee_id) ?? fits[0] ?? null
}

const kindWords: Record<ReportKind, string> = {
  implementation: 'an implementation report',
  test: 'a test report',
  review: 'a review',
}

/** The prefilled message that resolves one reason, to the member who can act on it. */
function actionFor(
  ws: string,
  book: MemberBook,
  task: TaskRow,
  kind: ReportKind,
  report: Evidence['row'] | null,
  why: 'missing' | 'failed' | 'stale',
  message: string,
  found?: EvidenceReport,
): AcceptanceAction {
  const tk = makeKey('task', task.id)
  const commit = task.artifact_commit
  const on = commit ? ` on ${commit.slice(0, 7)}` : ''
  const author = report?.author_id != null ? book.byId.get(report.author_id) : undefined
  const assignee = task.assignee_id === null ? undefined : book.byId.get(task.assignee_id)
  // A failed report is for the assignee to fix; a stale one for its author to redo; a missing one for whoever fits.
  const who =
    why === 'failed'
      ? (assignee ?? author ?? null)
      : why === 'stale'
        ? (author ?? memberFor(book, task, kind))
        : memberFor(book, task, kind)
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
        ? `${found ? findings(found) : message}\n\nPlease fix ${tk}, then deliver it again.`
        : `Please check ${tk}${on} and submit ${kindWords[kind]} on it.`
  return {
    memberId: who ? makeId(ws, 'member', who.id) : null,
    memberName: who?.name ?? null,
    taskId: makeId(ws, 'task', task.id),
    commit,
    label,
    text,
  }
}

/** A claim that did not hold: its verdict is fail or partial. */
const failing = (r: EvidenceReport) => r.claims.filter((c) => c.verdict !== 'pass')

/** "R-8 failed: 2 of 5 claims" (partial: "R-8 partly failed: …"); a report with no claims says only its verdict. */
export function failedText(r: EvidenceReport): string {
  const what = r.verdict === 'partial' ? 'partly failed' : 'failed'
  return r.claims.length ? `${r.key} ${what}: ${failing(r).length} of ${r.claims.length} claims` : `${r.key} ${what}`
}

/** What a failed report found, for whoever fixes it: its verdict line, its summary, and each claim that did not hold. */
function findings(r: EvidenceReport): string {
  const lines = [`${failedText(r)}.`]
  if (r.summary.trim()) lines.push(`Summary: ${r.summary.trim()}`)
  const bad = failing(r)
  if (bad.length) lines.push(`Failing claims:\n${bad.map((c) => `- [${c.verdict}] ${c.text}`).join('\n')}`)
  return lines.join('\n')
}

/** Every reason the task's current evidence cannot support acceptance, each with its action; empty when it can. */
function acceptanceReasons(ws: string, { task, links, latest, carried }: ReadinessInput, members: () => MemberBook) {
  const reasons: AcceptanceReason[] = []
  const tk = makeKey('task', task.id)
  for (const kind of JSON.parse(task.required_reports) as ReportKind[]) {
    const found = latest.get(kind)
    if (!found) {
      const message = `${tk} has no ${kind} report`
      reasons.push({
        code: 'evidence_missing',
        reportId: null,
        message,
        reportKind: kind,
        action: actionFor(ws, members(), task, kind, null, 'missing', message),
      })
      continue
    }
    const { row, report } = found
    const rk = report.key
    const add = (code: AcceptanceReason['code'], message: string) =>
      reasons.push({
        code,
        reportId: report.id,
        message,
        reportKind: kind,
        action: actionFor(
          ws,
          members(),
          task,
          kind,
          row,
          code === 'evidence_stale' ? 'stale' : 'failed',
          message,
          code === 'evidence_stale' ? undefined : report,
        ),
      })
    if (report.verdict !== 'pass') add('evidence_missing', failedText(report))
    if (!sameArtifact(task, report.artifact) && !(kind === 'review' && carriedTo(task, report.artifact, carried))) {
      add(
        'evidence_stale',
        `${rk} checked ${artifactText(report.artifact)}; ${tk} is delivered at ${artifactText({ commit: task.artifact_commit, digest: task.artifact_digest })}`,
      )
    }
    for (const message of staleness(ws, links, report)) add('evidence_stale', message)
  }
  return reasons
}

/**
 * What the base branch's move does to the delivered commit (issue 30): a trial merge that conflicts (merge_conflict),
 * or a merge that would land a tree other than the commit's own, which is what the reports checked (base_moved). Only
 * a check of this very commit counts: a commit delivered since is checked again when it is (base-moves.ts).
 */
function baseReasons(ws: string, { task, base }: ReadinessInput, members: () => MemberBook): AcceptanceReason[] {
  if (!base || !task.artifact_commit || base.task_commit !== task.artifact_commit) return []
  const tk = makeKey('task', task.id)
  const main = base.base_branch
  const action = (message: string): AcceptanceAction => {
    const assignee = task.assignee_id === null ? undefined : members().byId.get(task.assignee_id)
    return {
      memberId: assignee ? makeId(ws, 'member', assignee.id) : null,
      memberName: assignee?.name ?? null,
      taskId: makeId(ws, 'task', task.id),
      commit: task.artifact_commit,
      label: `Ask ${assignee?.name ?? 'a member'} to update ${tk} from ${main}`,
      text: `${message}. Please bring ${main} (${short(base.base_head)}) into ${tk}'s branch${base.conflicts ? ', resolve the conflicts' : ''}, run the tests on the result, and deliver it again.`,
    }
  }
  if (base.conflicts) {
    const paths = JSON.parse(base.conflicts) as string[]
    const message = `${tk} conflicts with ${main} in ${paths.join(', ')}: it cannot be merged until its branch is updated`
    return [{ code: 'merge_conflict', reportId: null, message, action: action(message) }]
  }
  if (base.lands_as_checked) return []
  const message = `${main} moved since ${tk}'s evidence was made (${tk} is behind by ${base.behind}): merging would land a tree no report checked`
  return [{ code: 'base_moved', reportId: null, message, action: action(message) }]
}

/** Why a report no longer rests on the current decisions the task depends on (its basis, its claims); empty when it does. */
function staleness(ws: string, links: TaskLinkRow[], report: EvidenceReport): string[] {
  const out: string[] = []
  const rk = report.key
  const basis = new Map(report.basis.map((b) => [b.decisionId, b]))
  for (const l of links) {
    const dk = makeKey('decision', l.decision_id)
    const b = basis.get(makeId(ws, 'decision', l.decision_id))
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
 * The assignee's latest implementation report, passing, on a commit, and still resting on the current decisions:
 * what an in-progress task can be delivered on (a report a decision change left stale offers nothing).
 */
function deliveryOffer(ws: string, { task, links, latest, undone }: ReadinessInput): TaskReadiness['deliverOn'] {
  const r = latest.get('implementation')
  if (task.assignee_id === null || !r) return null
  const { row, report } = r
  if (row.verdict !== 'pass' || row.author_id !== task.assignee_id || !row.artifact_commit) return null
  if (undone?.has(row.artifact_commit)) return null
  if (staleness(ws, links, report).length) return null
  return { commit: row.artifact_commit, reportId: report.id, reportKey: report.key }
}
