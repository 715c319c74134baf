import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task } from '../../../../shared/schemas'
import { moveRefusal } from '../../../../shared/task-rules'
import type { TaskRow } from '../../store/tasks-repo'
import {
  actorOf,
  decisionRow,
  memberRowOf,
  requireAssigneeOrDecider,
  requireDecider,
  taskRow,
  type Ctx,
} from '../context'
import { makeKey, now } from '../ids'
import { toTask, toTasks } from '../mappers'
import { workspaceSettings } from '../workspace/workspace-settings'
import { assertPlanAllowsDelivery, setPlanFirst } from '../rules/plan-phase'

function linksFor(ctx: Ctx, decisionIds: string[]) {
  const seen = new Set<number>()
  return decisionIds.flatMap((id, i) => {
    const d = decisionRow(ctx, id, `decisionIds[${i}]`)
    if (seen.has(d.id)) return []
    seen.add(d.id)
    return [{ decisionId: d.id, version: d.version, fingerprint: d.fingerprint }]
  })
}

function blockersFor(ctx: Ctx, taskId: number | null, blockedBy: string[]): number[] {
  const ids = [...new Set(blockedBy.map((id, i) => taskRow(ctx, id, `blockedBy[${i}]`).id))]
  if (taskId !== null) {
    // Refuse a cycle: walking from the new blockers must never come back to this task.
    const stack = [...ids]
    const seen = new Set<number>()
    while (stack.length) {
      const t = stack.pop()!
      if (t === taskId)
        throw new ApiError('invalid_params', `blockedBy: ${makeKey('task', taskId)} would end up blocking itself`)
      if (seen.has(t)) continue
      seen.add(t)
      stack.push(...ctx.store.tasks.blockers(t))
    }
  }
  return ids
}

function emitTask(ctx: Ctx, row: TaskRow): Task {
  const task = toTask(ctx.wsId, ctx.store, row)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return task
}

export function createTask(ctx: Ctx, p: ParsedParams<'tasks.create'>): Task {
  // Any member of the workspace may create a task; the actor must be one.
  actorOf(ctx, p.actorId)
  const assignee = p.assigneeId ? memberRowOf(ctx, p.assigneeId, 'assigneeId') : null
  const links = linksFor(ctx, p.decisionIds ?? [])
  const blockers = blockersFor(ctx, null, p.blockedBy ?? [])
  const row = ctx.store.transaction(() => {
    const at = now()
    const id = ctx.store.tasks.insert({
      title: p.title,
      spec: p.spec ?? '',
      acceptance_criteria: p.acceptanceCriteria ?? '',
      assignee_id: assignee,
      required_reports: JSON.stringify(p.requiredReports ?? ['test', 'review']),
      created_at: at,
    })
    ctx.store.tasks.replaceLinks(id, links)
    ctx.store.tasks.replaceBlockers(id, blockers)
    if (p.planFirst ?? workspaceSettings(ctx).planFirst) ctx.store.plans.setPlanFirst(id, true)
    ctx.store.log.appendEvent('task.created', { taskId: id }, at)
    return ctx.store.tasks.get(id)!
  })
  return emitTask(ctx, row)
}

export function updateTask(ctx: Ctx, p: ParsedParams<'tasks.update'>): Task {
  const row = taskRow(ctx, p.taskId)
  requireAssigneeOrDecider(actorOf(ctx, p.actorId), row.assignee_id, makeKey('task', row.id), 'edit')
  const assignee =
    p.assigneeId === undefined
      ? row.assignee_id
      : p.assigneeId === null
        ? null
        : memberRowOf(ctx, p.assigneeId, 'assigneeId')
  const links = p.decisionIds === undefined ? null : linksFor(ctx, p.decisionIds)
  const blockers = p.blockedBy === undefined ? null : blockersFor(ctx, row.id, p.blockedBy)
  const updated = ctx.store.transaction(() => {
    if (links) {
      // Links kept from before stay pinned where they were; new ones pin the current version.
      const before = new Map(ctx.store.tasks.links(row.id).map((l) => [l.decision_id, l]))
      ctx.store.tasks.replaceLinks(
        row.id,
        links.map((l) => {
          const old = before.get(l.decisionId)
          return old
            ? { decisionId: l.decisionId, version: old.pinned_version, fingerprint: old.pinned_fingerprint }
            : l
        }),
      )
    }
    if (blockers) ctx.store.tasks.replaceBlockers(row.id, blockers)
    if (p.planFirst !== undefined) setPlanFirst(ctx, ctx.store.tasks.get(row.id)!, p.planFirst)
    ctx.store.tasks.update({
      ...row,
      title: p.title ?? row.title,
      spec: p.spec ?? row.spec,
      acceptance_criteria: p.acceptanceCriteria ?? row.acceptance_criteria,
      assignee_id: assignee,
      required_reports: p.requiredReports ? JSON.stringify(p.requiredReports) : row.required_reports,
      updated_at: now(),
    })
    return ctx.store.tasks.get(row.id)!
  })
  return emitTask(ctx, updated)
}

export function setTaskStatus(ctx: Ctx, p: ParsedParams<'tasks.setStatus'>): Task {
  const row = taskRow(ctx, p.taskId)
  const actor = actorOf(ctx, p.actorId)
  const key = makeKey('task', row.id)
  requireAssigneeOrDecider(actor, row.assignee_id, key, 'move')
  if (p.status === 'accepted') {
    throw new ApiError(
      'invalid_transition',
      moveRefusal(key, row.status, p.status) ??
        `${key}: acceptance goes through tasks.accept, which checks the evidence`,
    )
  }
  if (p.artifact && p.status !== 'delivered')
    throw new ApiError('invalid_params', 'artifact: only a delivery carries an artifact')
  const updated = ctx.store.transaction(() => {
    const current = ctx.store.tasks.get(row.id)!
    // Read inside the transaction: an acceptance that landed meanwhile is seen here.
    if (current.status === 'accepted') requireDecider(actor, `reopen the accepted ${key}`)
    const refused = moveRefusal(key, current.status, p.status)
    if (refused) throw new ApiError('invalid_transition', refused)
    if (p.planFirst !== undefined) {
      if (p.status !== 'in_progress')
        throw new ApiError('invalid_params', 'planFirst: only a start (status in_progress) sets plan first')
      setPlanFirst(ctx, current, p.planFirst)
    }
    if (p.status === 'delivered') assertPlanAllowsDelivery(ctx, current)
    // A task being tried by several members gets its work from the attempt picked, not from a start of its own.
    if (p.status === 'in_progress' && !current.picked_attempt) {
      const attempts = ctx.store.attempts.of(row.id)
      if (attempts.length)
        throw new ApiError(
          'invalid_transition',
          `${key} is being tried by ${attempts.map((a) => makeKey('task', a.id)).join(', ')}: pick one of them (tasks.pickAttempt)`,
        )
    }
    if (p.status === 'in_progress' || p.status === 'delivered') {
      const open = ctx.store.tasks.openBlockers(row.id)
      if (open.length) {
        throw new ApiError(
          'task_blocked',
          `${key} is blocked by ${open.map((b) => makeKey('task', b)).join(', ')}, not yet accepted`,
        )
      }
    }
    let commit = current.artifact_commit
    let digest = current.artifact_digest
    if (p.status === 'delivered') {
      if (p.artifact) {
        commit = p.artifact.commit?.toLowerCase() ?? null
        digest = p.artifact.digest ?? null
      } else if (!commit && !digest) {
        throw new ApiError('invalid_params', 'artifact: a delivery needs the commit or digest that was delivered')
      }
    }
    ctx.store.tasks.update({
      ...current,
      status: p.status,
      artifact_commit: commit,
      artifact_digest: digest,
      updated_at: now(),
    })
    ctx.store.log.appendEvent(
      'task.status',
      { taskId: row.id, from: current.status, to: p.status, commit, digest },
      now(),
    )
    return ctx.store.tasks.get(row.id)!
  })
  return emitTask(ctx, updated)
}

/** The assignee has read the current decisions: links re-pinned, flag cleared unless re-verification is still owed. */
export function acknowledgeTask(ctx: Ctx, p: ParsedParams<'tasks.acknowledge'>): Task {
  const row = taskRow(ctx, p.taskId)
  requireAssigneeOrDecider(actorOf(ctx, p.actorId), row.assignee_id, makeKey('task', row.id), 'acknowledge')
  const updated = ctx.store.transaction(() => {
    const current = ctx.store.tasks.get(row.id)!
    ctx.store.tasks.repinLinks(row.id)
    const owed =
      current.flag === 'needs_reverification' && (current.status === 'delivered' || current.status === 'accepted')
    ctx.store.tasks.update({ ...current, flag: owed ? current.flag : null, updated_at: now() })
    ctx.store.log.appendEvent('task.acknowledged', { taskId: row.id }, now())
    return ctx.store.tasks.get(row.id)!
  })
  return emitTask(ctx, updated)
}

export function getTask(ctx: Ctx, taskId: string): Task {
  return toTask(ctx.wsId, ctx.store, taskRow(ctx, taskId))
}

export function listTasks(ctx: Ctx, assigneeId?: string): Task[] {
  const assignee = assigneeId === undefined ? undefined : memberRowOf(ctx, assigneeId, 'assigneeId')
  return toTasks(ctx.wsId, ctx.store, ctx.store.tasks.list(assignee))
}
