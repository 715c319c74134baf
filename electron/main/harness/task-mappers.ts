/** Task rows → API tasks: links, blockers, branches, readiness, base checks, the merge queue and pull requests, read set-wise. */
import type * as s from '../../../shared/schemas'
import type { BaseCheckRow, BaseOverlap } from '../store/base-repo'
import type { MergeQueueRow } from '../store/merge-queue-repo'
import type { PlanRow } from '../store/plans-repo'
import type { PullRequestRow } from '../store/pull-requests-repo'
import type { ReportRow } from '../store/reports-repo'
import type { TaskLinkRow, TaskRow } from '../store/tasks-repo'
import type { ReadableStore } from '../store/readable-store'
import { makeId, makeKey } from './ids'
import { idOrNull, push, toPlan } from './record-mappers'
import { toReports } from './report-mappers'
import {
  type EvidenceReport,
  type MemberBook,
  type ReadinessInput,
  readinessKinds,
  readinessOf,
} from './rules/readiness'

interface TaskRelated {
  links: Map<number, s.TaskLink[]>
  blockers: Map<number, string[]>
  branches: Map<number, Pick<s.Task, 'branch' | 'head' | 'merged'>>
  /** The tasks the store's rule says are flagged (TasksRepo.flaggedAmong). */
  flagged: Set<number>
  readiness: Map<number, s.TaskReadiness>
  base: Map<number, s.TaskBase>
  mergeQueue: Map<number, s.TaskMergeQueue>
  openComments: Map<number, number>
  pullRequests: Map<number, PullRequestRow>
  plans: Map<number, PlanRow>
  attempts: Map<number, number>
}

const noBranch: Pick<s.Task, 'branch' | 'head' | 'merged'> = { branch: null, head: null, merged: null }

/**
 * The readiness of each task (the rule: tasks/readiness.ts), read set-wise: the newest report of each kind it looks at
 * for the whole set in one statement (ReportsRepo.evidence); a stale one then whole, as toReports reads it (the rule
 * names its stale claims, counts a failing one's claims), a valid passing one as that statement gave it (every claim of it is valid); the members once if a
 * reason needs them. Tasks whose status has no readiness to compute cost nothing. `links`: each task's links.
 */
export function readinessOfTasks(
  ws: string,
  store: ReadableStore,
  rows: TaskRow[],
  links: Map<number, TaskLinkRow[]>,
): Map<number, s.TaskReadiness> {
  const pairs: [number, ReportRow['kind']][] = []
  for (const r of rows) for (const kind of new Set(readinessKinds(r))) pairs.push([r.id, kind])
  const evidence = store.reports.evidence(pairs)
  // Read whole too: a report that did not pass (the rule counts its failing claims and carries its summary).
  const stale = store.reports.getMany(evidence.filter((e) => e.stale || e.row.verdict !== 'pass').map((e) => e.row.id))
  const whole = new Map(toReports(ws, store, stale).map((r) => [r.id, r]))
  const latest = new Map<number, ReadinessInput['latest']>()
  for (const { row, basis } of evidence) {
    let of = latest.get(row.task_id)
    if (!of) latest.set(row.task_id, (of = new Map() as ReadinessInput['latest']))
    const id = makeId(ws, 'report', row.id)
    const report: EvidenceReport = whole.get(id) ?? {
      id,
      key: makeKey('report', row.id),
      verdict: row.verdict,
      summary: '',
      artifact: { commit: row.artifact_commit, digest: row.artifact_digest },
      basis: basis.map((b) => ({
        decisionId: makeId(ws, 'decision', b.decision_id),
        version: b.version,
        state: b.current ? 'current' : 'suspect',
      })),
      claims: [],
    }
    of.set(row.kind, { row, report })
  }
  let book: MemberBook | undefined
  const members = () => {
    if (!book) {
      const all = store.members.list(true)
      book = { byId: new Map(all.map((m) => [m.id, m])), active: all.filter((m) => m.archived_at === null) }
    }
    return book
  }
  const none: ReadinessInput['latest'] = new Map()
  const bases = store.base.among(
    rows.filter((r) => r.status === 'delivered' || r.status === 'accepted').map((r) => r.id),
  )
  const carried = store.mergeQueue.carriedAmong(rows.filter((r) => r.status === 'delivered').map((r) => r.id))
  const undone = store.turnUndo.commitsAmong(rows.filter((r) => r.status === 'in_progress').map((r) => r.id))
  const out = new Map<number, s.TaskReadiness>()
  for (const task of rows)
    out.set(
      task.id,
      readinessOf(
        ws,
        {
          task,
          links: links.get(task.id) ?? [],
          latest: latest.get(task.id) ?? none,
          base: bases.get(task.id),
          carried: carried.get(task.id),
          undone: undone.get(task.id),
        },
        members,
      ),
    )
  return out
}

/** One task's readiness, its links read here (tasks.accept's check, automatic turns). */
export function readinessOfTask(ws: string, store: ReadableStore, row: TaskRow): s.TaskReadiness {
  return readinessOfTasks(ws, store, [row], new Map([[row.id, store.tasks.links(row.id)]])).get(row.id)!
}

/** The statuses whose tasks are checked against the base branch (harness/workspace/base-moves.ts checks them). */
export const baseCheckedStatuses: readonly TaskRow['status'][] = ['in_progress', 'delivered', 'accepted']

export function toTaskBase(ws: string, c: BaseCheckRow): s.TaskBase {
  const overlaps = JSON.parse(c.overlaps) as BaseOverlap[]
  return {
    branch: c.base_branch,
    head: c.base_head,
    commit: c.task_commit,
    behind: c.behind,
    overlaps: overlaps.map((o) => ({
      taskId: o.taskId === null ? null : makeId(ws, 'task', o.taskId),
      key: o.taskId === null ? null : makeKey('task', o.taskId),
      files: o.files,
    })),
    conflicts: c.conflicts ? (JSON.parse(c.conflicts) as string[]) : null,
    landsAsChecked: c.lands_as_checked === 1,
    mergeTreeKnown: c.merge_tree === 1,
    checkedAt: c.checked_at,
  }
}

/** A queued merge as the card shows it: its place, its state, and the reports it waits for (from the readiness). */
function toMergeQueue(
  ws: string,
  store: ReadableStore,
  q: MergeQueueRow & { rank: number },
  readiness: s.TaskReadiness,
): s.TaskMergeQueue {
  const by = q.queued_by === null ? null : store.members.get(q.queued_by)
  const waitingFor =
    q.state === 'verifying'
      ? readiness.reasons
          .filter((r) => r.reportKind && r.code !== 'base_moved' && r.code !== 'merge_conflict')
          .map((r) => ({
            memberId: r.action?.memberId ?? null,
            memberName: r.action?.memberName ?? null,
            kind: r.reportKind!,
            commit: r.action?.commit ?? null,
          }))
      : []
  return {
    position: q.rank,
    state: q.state,
    message: q.message,
    waitingFor,
    queuedBy: by ? makeId(ws, 'member', by.id) : null,
    queuedAt: q.queued_at,
    strategy: q.strategy as s.TaskMergeQueue['strategy'],
  }
}

/** Tasks for a set of rows: links, blockers, branches and readiness are read once for the whole set, not per row. */
export function toTasks(ws: string, store: ReadableStore, rows: TaskRow[]): s.Task[] {
  const ids = rows.map((r) => r.id)
  const related = store.tasks.related(ids)
  const linkRows = new Map<number, TaskLinkRow[]>()
  for (const l of related.links) push(linkRows, l.task_id, l)
  const rel: TaskRelated = {
    links: new Map(),
    blockers: new Map(),
    branches: new Map(),
    flagged: store.tasks.flaggedAmong(ids),
    readiness: readinessOfTasks(ws, store, rows, linkRows),
    base: new Map(),
    mergeQueue: new Map(),
    openComments: store.diffComments.openCounts(ids),
    pullRequests: store.pullRequests.among(ids),
    plans: store.plans.latestAmong(ids),
    attempts: store.attempts.counts(),
  }
  for (const [id, q] of store.mergeQueue.among(ids))
    rel.mergeQueue.set(id, toMergeQueue(ws, store, q, rel.readiness.get(id)!))
  const open = new Set(related.branches.filter((b) => !b.merged_commit).map((b) => b.task_id))
  const checked = rows.filter((r) => open.has(r.id) && baseCheckedStatuses.includes(r.status)).map((r) => r.id)
  for (const [id, c] of store.base.among(checked)) rel.base.set(id, toTaskBase(ws, c))
  for (const l of related.links) {
    push(rel.links, l.task_id, {
      decisionId: makeId(ws, 'decision', l.decision_id),
      decisionKey: makeKey('decision', l.decision_id),
      pinnedVersion: l.pinned_version,
      currentVersion: l.current_version,
      state: l.pinned_fingerprint === l.current_fingerprint ? 'current' : 'suspect',
    })
  }
  for (const b of related.blockers) push(rel.blockers, b.task_id, makeId(ws, 'task', b.blocker_id))
  for (const b of related.branches) {
    rel.branches.set(b.task_id, {
      branch: b.branch,
      head: b.head,
      merged: b.merged_commit && b.merged_at ? { commit: b.merged_commit, at: b.merged_at } : null,
    })
  }
  return rows.map((r) => taskOf(ws, r, rel))
}

export function toTask(ws: string, store: ReadableStore, r: TaskRow): s.Task {
  return toTasks(ws, store, [r]).at(0)!
}

function taskOf(ws: string, r: TaskRow, rel: TaskRelated): s.Task {
  const links = rel.links.get(r.id) ?? []
  return {
    id: makeId(ws, 'task', r.id),
    workspaceId: ws,
    key: makeKey('task', r.id),
    title: r.title,
    spec: r.spec,
    acceptanceCriteria: r.acceptance_criteria,
    status: r.status,
    assigneeId: idOrNull(ws, 'member', r.assignee_id),
    flag: r.flag,
    flagged: rel.flagged.has(r.id),
    artifact: r.artifact_commit || r.artifact_digest ? { commit: r.artifact_commit, digest: r.artifact_digest } : null,
    links,
    blockedBy: rel.blockers.get(r.id) ?? [],
    requiredReports: JSON.parse(r.required_reports) as s.Task['requiredReports'],
    readiness: rel.readiness.get(r.id)!,
    ...(rel.branches.get(r.id) ?? noBranch),
    base: rel.base.get(r.id) ?? null,
    mergeQueue: rel.mergeQueue.get(r.id) ?? null,
    openComments: rel.openComments.get(r.id) ?? 0,
    pullRequest: toPullRequest(rel.pullRequests.get(r.id)),
    planFirst: r.plan_first === 1,
    plan: rel.plans.has(r.id) ? toPlan(ws, rel.plans.get(r.id)!) : null,
    // Attempts ("Try it with…") only where there are some: most tasks are neither tried nor an attempt.
    ...(r.attempt_of ? { attemptOf: makeId(ws, 'task', r.attempt_of) } : {}),
    ...(rel.attempts.get(r.id) ? { attempts: rel.attempts.get(r.id) } : {}),
    ...(r.picked_attempt ? { pickedAttempt: makeId(ws, 'task', r.picked_attempt) } : {}),
    version: r.version,
    archivedAt: r.archived_at ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

function toPullRequest(r: PullRequestRow | undefined): s.TaskPullRequest | null {
  if (!r) return null
  return {
    remote: r.remote,
    owner: r.owner,
    repo: r.repo,
    number: r.number,
    url: r.url,
    headSha: r.head_sha,
    state: r.state,
    ci: r.ci_state,
    checks: JSON.parse(r.checks) as s.TaskPullRequest['checks'],
    reviewComments: JSON.parse(r.comments) as s.TaskPullRequest['reviewComments'],
    updatedAt: r.updated_at,
  }
}
