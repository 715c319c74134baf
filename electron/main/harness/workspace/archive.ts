/**
 * Archive, not lose: members, tasks and workspaces leave the lists and pages but keep every row (sessions,
 * reports, links, history) and stay in the export; restore brings them back as they were. Only deciders
 * (and the human) archive. A member that is working is refused until it is idle, so no turn, approval or
 * queued message is stranded with nobody to see it.
 */
import { ApiError } from '../../../../shared/errors'
import type { ArchivedItems, Member, Task, Workspace } from '../../../../shared/schemas'
import { WorkspaceArchiveRepo } from '../../store/archive-repo'
import { actorOf, memberRowOf, requireDecider, rowOf, type Ctx } from '../context'
import { toWorkspace, type Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { memberDto } from '../members/members'
import { closeBatches } from '../../platform/git-batch'

/** The runtime's view of a member's work the store cannot see (a turn between steps): why it is busy, or null. */
export type MemberActivity = (memberId: string) => string | null

/** Why the member cannot be archived now, or null: the runtime's view first, then what the store holds. */
function busyReason(ctx: Ctx, rowId: number, activity?: MemberActivity): string | null {
  const live = activity?.(makeId(ctx.wsId, 'member', rowId))
  if (live) return live
  const work = ctx.store.archive.memberWork(rowId)
  if (work.open) return 'a turn is running'
  if (work.queued) return `${work.queued} message${work.queued === 1 ? ' is' : 's are'} queued`
  return null
}

function requireIdle(ctx: Ctx, rowId: number, activity?: MemberActivity): void {
  const reason = busyReason(ctx, rowId, activity)
  if (!reason) return
  const name = ctx.store.members.get(rowId)?.name ?? 'the member'
  throw new ApiError(
    'member_busy',
    `${name} cannot be archived while it works (${reason}): wait until it is idle, or stop its turn and clear its queue, then archive it`,
  )
}

export function archiveMember(
  h: Harness,
  p: { memberId: string; actorId?: string },
  activity?: MemberActivity,
): Member {
  return setMemberArchived(h, p, true, activity)
}

export function restoreMember(h: Harness, p: { memberId: string; actorId?: string }): Member {
  return setMemberArchived(h, p, false)
}

function setMemberArchived(
  h: Harness,
  p: { memberId: string; actorId?: string },
  archive: boolean,
  activity?: MemberActivity,
): Member {
  const ctx = h.ctxOf('member', p.memberId, 'memberId')
  requireDecider(actorOf(ctx, p.actorId), archive ? 'archive members' : 'restore members')
  const n = memberRowOf(ctx, p.memberId, 'memberId')
  if (archive) requireIdle(ctx, n, activity)
  const row = setArchivedTx(ctx, archive, {
    get: () => ctx.store.members.get(n)!,
    set: (date, at) => ctx.store.archive.setMember(n, date, at),
    event: archive ? 'member.archived' : 'member.restored',
    payload: { memberId: n, actorId: p.actorId ?? null },
  })
  const member = memberDto(ctx, h.secrets, row)
  ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return member
}

export function archiveTask(h: Harness, p: { taskId: string; actorId?: string }): Task {
  return setTaskArchived(h, p, true)
}

export function restoreTask(h: Harness, p: { taskId: string; actorId?: string }): Task {
  return setTaskArchived(h, p, false)
}

function setTaskArchived(h: Harness, p: { taskId: string; actorId?: string }, archive: boolean): Task {
  const ctx = h.ctxOf('task', p.taskId, 'taskId')
  const n = rowOf(ctx, 'task', p.taskId, 'taskId')
  if (!ctx.store.tasks.get(n)) throw new ApiError('not_found', `taskId: task ${p.taskId} does not exist`)
  requireDecider(actorOf(ctx, p.actorId), `${archive ? 'archive' : 'restore'} ${makeKey('task', n)}`)
  const row = setArchivedTx(ctx, archive, {
    get: () => ctx.store.tasks.get(n)!,
    set: (date, at) => ctx.store.archive.setTask(n, date, at),
    event: archive ? 'task.archived' : 'task.restored',
    payload: { taskId: n, actorId: p.actorId ?? null },
  })
  const task = toTask(ctx.wsId, ctx.store, row)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  return task
}

/** A workspace leaves the list (its file stays); refused while any of its members works. */
export function archiveWorkspace(h: Harness, workspaceId: string, activity?: MemberActivity): Workspace {
  const ctx = h.ctx(workspaceId)
  for (const m of ctx.store.members.list()) {
    const reason = busyReason(ctx, m.id, activity)
    if (reason)
      throw new ApiError(
        'member_busy',
        `The workspace cannot be archived while ${m.name} works (${reason}): wait until every member is idle`,
      )
  }
  const archived = setWorkspaceArchived(h, workspaceId, now())
  // Its repository's long-lived git (platform/git-batch.ts) is not kept for a workspace nobody works in.
  closeBatches(archived.repoPath)
  return archived
}

export function restoreWorkspace(h: Harness, workspaceId: string): Workspace {
  h.workspace(workspaceId)
  return setWorkspaceArchived(h, workspaceId, null)
}

const workspaceRepos = new WeakMap<Harness, WorkspaceArchiveRepo>()
/** Prepared once per registry. */
function workspaceRepo(h: Harness): WorkspaceArchiveRepo {
  let repo = workspaceRepos.get(h)
  if (!repo) workspaceRepos.set(h, (repo = new WorkspaceArchiveRepo(h.registry.db)))
  return repo
}

function setWorkspaceArchived(h: Harness, workspaceId: string, at: string | null): Workspace {
  const cur = h.registry.byId(workspaceId)!
  // Archiving twice keeps the first date.
  if (Boolean(cur.archived_at) !== Boolean(at)) workspaceRepo(h).set(workspaceId, at)
  return toWorkspace(h.registry.byId(workspaceId)!)
}

export function archivedWorkspaces(h: Harness): Workspace[] {
  return workspaceRepo(h).archived().map(toWorkspace)
}

export function archivedItems(h: Harness, workspaceId: string): ArchivedItems {
  const ctx = h.ctx(workspaceId)
  return {
    members: ctx.store.archive.archivedMembers().map((r) => memberDto(ctx, h.secrets, r)),
    tasks: ctx.store.archive.archivedTasks().map((r) => toTask(ctx.wsId, ctx.store, r)),
  }
}

/** Messages to an archived member are refused: nobody would see its session. */
export function requireActiveMember(ctx: Ctx, rowId: number): void {
  const row = ctx.store.members.get(rowId)
  if (row?.archived_at)
    throw new ApiError(
      'invalid_transition',
      `${row.name} is archived: restore it (Archived, in the sidebar) before sending it messages`,
    )
}

/**
 * A member's or task's archived date set (or cleared) in one transaction, with its event. Archiving twice keeps the
 * first date; restoring a record that is not archived changes nothing.
 */
function setArchivedTx<R extends { archived_at: string | null }>(
  ctx: Ctx,
  archive: boolean,
  r: { get: () => R; set: (date: string | null, at: string) => void; event: string; payload: Record<string, unknown> },
): R {
  const at = now()
  return ctx.store.transaction(() => {
    const cur = r.get()
    if (Boolean(cur.archived_at) === archive) return cur
    r.set(archive ? at : null, at)
    ctx.store.log.appendEvent(r.event, r.payload, at)
    return r.get()
  })
}
