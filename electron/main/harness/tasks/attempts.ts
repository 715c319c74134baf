/**
 * Several attempts at one task (issue 33, the review loop): "Try it with…" runs a task not started yet on 2–4 members,
 * each attempt a task of its own linked to the original (attempt_of) and started the way any task starts (its own
 * branch and tree, its member's turn). The compare view reads what each changed (git), proved (reports) and cost
 * (tokens and time of its steps). Picking one makes its work the original's delivery in one transaction; the other
 * attempts are cancelled and archived, their trees removed after it (their branches stay, as a cancel leaves them).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { DiffFile, Task, TaskAttempt, TaskAttempts } from '../../../../shared/schemas'
import type { TaskRow } from '../../store/tasks-repo'
import { actorOf, memberRowOf, requireDecider, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { toTask, toTasks } from '../mappers'
import { assertBranchable, refreshHead, releaseTaskWorktree } from '../workspace/task-branches'
import { diffFiles } from './task-diff'
import { moveTask, type TaskStarted } from './task-status'
import { getTask } from './tasks'

export const MIN_ATTEMPTS = 2
export const MAX_ATTEMPTS = 4

/** Attempts start on a task that has not: never started, no tree, not tried already, not itself an attempt. */
function refuseTry(ctx: Ctx, row: TaskRow): void {
  const key = makeKey('task', row.id)
  if (row.attempt_of)
    throw new ApiError(
      'invalid_transition',
      `${key} is an attempt at ${makeKey('task', row.attempt_of)}: try that task with other members instead`,
    )
  const tried = ctx.store.attempts.of(row.id)
  if (tried.length)
    throw new ApiError(
      'invalid_transition',
      `${key} was already tried with ${tried.length} members (${tried.map((t) => makeKey('task', t.id)).join(', ')})`,
    )
  if (row.status !== 'todo' || ctx.store.branches.get(row.id))
    throw new ApiError(
      'invalid_transition',
      `${key} has already started (${row.status.replace('_', ' ')}): attempts run a task that is still to do`,
    )
}

export async function tryWith(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.tryWith'>,
  onStarted?: TaskStarted,
): Promise<{ task: Task; attempts: Task[] }> {
  const row = taskRow(ctx, p.taskId)
  const key = makeKey('task', row.id)
  requireDecider(actorOf(ctx, p.actorId), `try ${key} with several members`)
  const members = p.memberIds.map((id, i) => memberRowOf(ctx, id, `memberIds[${i}]`))
  const distinct = [...new Set(members)]
  if (distinct.length < MIN_ATTEMPTS)
    throw new ApiError(
      'too_few_attempts',
      `memberIds: name ${MIN_ATTEMPTS} to ${MAX_ATTEMPTS} different members to try ${key} with (${distinct.length} given); one member is a start, not attempts`,
    )
  if (distinct.length > MAX_ATTEMPTS)
    throw new ApiError(
      'too_many_attempts',
      `memberIds: ${key} can be tried with at most ${MAX_ATTEMPTS} members at once (${distinct.length} given)`,
    )
  refuseTry(ctx, row)
  const blockers = ctx.store.tasks.openBlockers(row.id)
  if (blockers.length)
    throw new ApiError(
      'task_blocked',
      `${key} is blocked by ${blockers.map((b) => makeKey('task', b)).join(', ')}, not yet accepted`,
    )
  // A repository without a commit gives no attempt a tree: refused before any is made.
  await assertBranchable(h, ctx, row.id)
  const created = ctx.store.transaction(() => {
    // Read again inside the transaction: a start or another try that landed meanwhile is seen here.
    refuseTry(ctx, ctx.store.tasks.get(row.id)!)
    const at = now()
    const ids = distinct.map((m) => ctx.store.attempts.insert(row.id, m, at))
    for (const id of ids) ctx.store.log.appendEvent('task.created', { taskId: id, attemptOf: row.id }, at)
    ctx.store.log.appendEvent('task.attempts', { taskId: row.id, attempts: ids, members: distinct }, at)
    return ids
  })
  // Each attempt starts as any task does: its branch and tree, then its member's turn.
  const attempts: Task[] = []
  for (const id of created)
    attempts.push(
      await moveTask(
        h,
        ctx,
        { taskId: makeId(ctx.wsId, 'task', id), status: 'in_progress', actorId: p.actorId },
        onStarted,
      ),
    )
  const task = getTask(ctx, p.taskId)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return { task, attempts }
}

/** The task whose attempts these are: the task itself, or the one it is an attempt at. */
function originalOf(ctx: Ctx, taskId: string): TaskRow {
  const row = taskRow(ctx, taskId)
  return row.attempt_of ? ctx.store.tasks.get(row.attempt_of)! : row
}

export async function listAttempts(h: Harness, ctx: Ctx, taskId: string): Promise<TaskAttempts> {
  const original = originalOf(ctx, taskId)
  const rows = ctx.store.attempts.of(original.id)
  const tasks = toTasks(ctx.wsId, ctx.store, rows)
  const attempts: TaskAttempt[] = []
  for (const [i, r] of rows.entries()) {
    const picked = original.picked_attempt === r.id
    // A picked attempt's work is the original's now: its branch, tree and reports moved there.
    const holder = picked ? original.id : r.id
    const branch = (await refreshHead(h, ctx, holder).catch(() => ctx.store.branches.get(holder))) ?? null
    const files: DiffFile[] =
      branch && branch.head !== branch.base_commit
        ? await diffFiles(h.workspace(ctx.wsId).repoPath, branch.base_commit, branch.head)
        : []
    const member = r.assignee_id ? ctx.store.members.get(r.assignee_id) : undefined
    const work = ctx.store.attempts.work(r.id)
    attempts.push({
      task: tasks[i]!,
      member: member
        ? {
            id: makeId(ctx.wsId, 'member', member.id),
            name: member.name,
            role: member.role,
            model: member.provider_model ?? member.agent,
          }
        : null,
      files,
      additions: files.reduce((n, f) => n + (f.additions ?? 0), 0),
      deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
      reports: ctx.store.reports
        .list(holder)
        .filter((rep) => rep.superseded_by === null)
        .map((rep) => ({
          id: makeId(ctx.wsId, 'report', rep.id),
          key: makeKey('report', rep.id),
          kind: rep.kind,
          verdict: rep.verdict,
          claims: rep.claim_count,
          summary: rep.summary,
        })),
      tokens: work.input === null ? null : { input: work.input, output: work.output ?? 0 },
      durationMs: work.first_step && work.last_step ? Date.parse(work.last_step) - Date.parse(work.first_step) : null,
      hasTree: Boolean(branch?.worktree),
      picked,
    })
  }
  return {
    taskId: makeId(ctx.wsId, 'task', original.id),
    pickedId: original.picked_attempt ? makeId(ctx.wsId, 'task', original.picked_attempt) : null,
    attempts,
  }
}

/** Why this attempt cannot be picked for this task now, or null. */
function pickRefusal(original: TaskRow, attempt: TaskRow): ApiError | null {
  const key = makeKey('task', original.id)
  const ak = makeKey('task', attempt.id)
  if (attempt.attempt_of !== original.id)
    return new ApiError('invalid_params', `attemptId: ${ak} is not an attempt at ${key}`)
  if (original.picked_attempt)
    return new ApiError(
      'invalid_transition',
      `${key} already has its delivery from ${makeKey('task', original.picked_attempt)}`,
    )
  if (attempt.status !== 'delivered' && attempt.status !== 'accepted')
    return new ApiError(
      'invalid_transition',
      `${ak} has not delivered yet (${attempt.status.replace('_', ' ')}): pick an attempt that delivered`,
    )
  return null
}

/** Stops the turns of these members (their attempt was not picked) before its tree goes. */
export type StopTurns = (memberIds: string[]) => void

export async function pickAttempt(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.pickAttempt'>,
  stopTurns?: StopTurns,
): Promise<TaskAttempts> {
  const original = taskRow(ctx, p.taskId)
  const attempt = taskRow(ctx, p.attemptId, 'attemptId')
  requireDecider(actorOf(ctx, p.actorId), `pick an attempt for ${makeKey('task', original.id)}`)
  const refused = pickRefusal(original, attempt)
  if (refused) throw refused
  // The head the attempt's tree has now is the one that moves (git outside the transaction).
  await refreshHead(h, ctx, attempt.id)
  const others = ctx.store.attempts.of(original.id).filter((r) => r.id !== attempt.id)
  ctx.store.transaction(() => {
    const o = ctx.store.tasks.get(original.id)!
    const a = ctx.store.tasks.get(attempt.id)!
    const again = pickRefusal(o, a)
    if (again) throw again
    const at = now()
    ctx.store.attempts.moveWork(a.id, o.id, at)
    ctx.store.tasks.update({
      ...o,
      status: a.status,
      flag: a.flag,
      assignee_id: a.assignee_id,
      artifact_commit: a.artifact_commit,
      artifact_digest: a.artifact_digest,
      updated_at: at,
    })
    ctx.store.archive.setTask(a.id, at, at)
    for (const other of others) {
      const cur = ctx.store.tasks.get(other.id)!
      if (cur.status !== 'cancelled') {
        ctx.store.tasks.update({ ...cur, status: 'cancelled', updated_at: at })
        ctx.store.log.appendEvent('task.status', { taskId: cur.id, from: cur.status, to: 'cancelled' }, at)
      }
      ctx.store.archive.setTask(cur.id, at, at)
    }
    ctx.store.log.appendEvent(
      'task.attemptPicked',
      {
        taskId: o.id,
        attemptId: a.id,
        commit: a.artifact_commit,
        archived: [a.id, ...others.map((r) => r.id)],
        actorId: p.actorId ?? null,
      },
      at,
    )
  })
  // A member still working on an attempt not picked is stopped: its tree is about to go.
  const working = ctx.store.attempts.workingOn(others.map((r) => r.id))
  if (working.length) stopTurns?.(working.map((m) => makeId(ctx.wsId, 'member', m)))
  // The others' trees go once the pick is recorded (their branches stay, as a cancel leaves them).
  for (const other of others) await releaseTaskWorktree(h, ctx, other.id).catch(() => false)
  for (const id of [original.id, attempt.id, ...others.map((r) => r.id)])
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(id)!) })
  return listAttempts(h, ctx, p.taskId)
}
