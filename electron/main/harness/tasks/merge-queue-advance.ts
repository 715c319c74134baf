/**
 * The merge queue's work on its first entry (merge-queue.ts says the three steps): the entry is checked (still a task
 * to merge, a tree, no merge of its assignee's under way), brought up to date when its merge would land another tree,
 * accepted again once the evidence on the updated head passes, then landed. Each step either lets the queue look again
 * ('next') or leaves it waiting for someone ('wait'), its card saying who.
 */
import { join } from 'node:path'
import { ApiError } from '../../../../shared/errors'
import type { TaskMergeQueue } from '../../../../shared/schemas'
import { checkAgainstBase } from '../../repo/base-check'
import { treeMidOperation } from '../../repo/branch-update'
import { isOwnTree } from '../../repo/git-repo'
import type { MergeQueueRow } from '../../store/merge-queue-repo'
import type { TaskRow } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { readinessOfTask, toTask } from '../mappers'
import { baseHead, scheduleBaseCheck } from '../workspace/base-moves'
import { workspaceSettings } from '../workspace/workspace-settings'
import { acceptTask } from './acceptance'
import { askVerifiers, authorName, short } from './merge-queue-verifiers'
import { landAccepted } from './task-merge'
import { updateBranch, type QueueTurn } from './task-update'

/** next: look at the queue again (its first entry moved on or left); wait: it waits for someone. */
type Step = 'next' | 'wait'

/** The first entry as it stands: its task, the tree it is merged from, and words for the card. */
interface Entry {
  q: MergeQueueRow
  task: TaskRow
  tree: string
  tk: string
  /** Its assignee's name, as the card says who it waits for. */
  who: string
}

/** Works on the queue's first entry until it waits for someone (or the queue is empty). */
export async function advance(h: Harness, ctx: Ctx, queueTurn: QueueTurn | undefined): Promise<void> {
  for (let guard = 0; guard < 50; guard++) {
    const first = frontOfQueue(ctx)
    if (!first) return
    if ((await advanceFirst(h, ctx, first, queueTurn)) === 'wait') return
  }
}

/** The first entry; the others wait behind it, as their cards say. */
function frontOfQueue(ctx: Ctx): MergeQueueRow | undefined {
  const [first, ...others] = ctx.store.mergeQueue.list()
  if (first)
    for (const other of others)
      setState(ctx, other, 'waiting', `queued to merge after ${makeKey('task', first.task_id)}`)
  return first
}

async function advanceFirst(h: Harness, ctx: Ctx, q: MergeQueueRow, queueTurn: QueueTurn | undefined): Promise<Step> {
  const entry = entryToWork(ctx, q)
  if (typeof entry === 'string') return entry
  const { task, tk } = entry
  const settings = workspaceSettings(ctx)
  const repo = h.workspace(ctx.wsId).repoPath
  const head = settings.baseBranch ? await baseHead(repo, settings.baseBranch) : null
  if (!head || !task.artifact_commit) {
    setState(ctx, q, 'blocked', `${tk} has no commit to merge, or the base branch none to merge into`)
    return 'wait'
  }
  const scratch = join(h.registry.dataDir, 'scratch', ctx.wsId, 'base')
  const check = await checkAgainstBase(repo, entry.tree, head, task.artifact_commit, scratch)
  if (!check) {
    setState(ctx, q, 'blocked', `git could not compare ${tk} with ${settings.baseBranch}`)
    return 'wait'
  }
  if (!check.landsAsChecked) {
    const overlap = check.both.length > 0 || Boolean(check.conflicts)
    return bringUpToDate(h, ctx, entry, { head, baseBranch: settings.baseBranch!, overlap }, queueTurn)
  }
  // 2. Verified on the tree that would land? The base check is brought up to date first (readiness reads it).
  await scheduleBaseCheck(h, ctx.wsId)
  const fresh = ctx.store.tasks.get(task.id)!
  if (fresh.status === 'delivered' && acceptIfVerified(ctx, entry, fresh, queueTurn) === 'wait') return 'wait'
  return land(h, ctx, q, task.id)
}

/** The entry when it can be worked on; else what the queue does (a task gone or merged leaves it). */
function entryToWork(ctx: Ctx, q: MergeQueueRow): Entry | Step {
  const task = ctx.store.tasks.get(q.task_id)
  const branch = ctx.store.branches.get(q.task_id)
  const tk = makeKey('task', q.task_id)
  if (!task || task.archived_at || !branch) return drop(ctx, q, 'gone')
  if (branch.merged_commit) return drop(ctx, q, 'merged')
  if (!['in_progress', 'delivered', 'accepted'].includes(task.status)) return drop(ctx, q, task.status)
  const assignee = task.assignee_id === null ? null : ctx.store.members.get(task.assignee_id)
  const who = assignee?.name ?? 'its assignee'
  if (!branch.worktree || !isOwnTree(branch.worktree)) {
    setState(ctx, q, 'blocked', `${tk} has no tree to update; start it again`)
    return 'wait'
  }
  if (treeMidOperation(branch.worktree)) {
    // The update's own message (the files, who resolves them) stays while the tree is in the merge.
    if (q.state !== 'conflict')
      setState(ctx, q, 'conflict', `waiting for ${who} to resolve ${tk}'s conflict with the base branch`)
    return 'wait'
  }
  if (task.status === 'in_progress') {
    setState(ctx, q, 'conflict', `waiting for ${who} to deliver ${tk} again`)
    return 'wait'
  }
  return { q, task, tree: branch.worktree, tk, who }
}

/**
 * 1. Brought up to date. Files in common: its assignee is told (a turn on the updated tree) and everything is verified
 * again; none: only the test is run again (the review carries over, task-update.ts).
 */
async function bringUpToDate(
  h: Harness,
  ctx: Ctx,
  { q, task, tk, who }: Entry,
  base: { head: string; baseBranch: string; overlap: boolean },
  queueTurn: QueueTurn | undefined,
): Promise<Step> {
  setState(ctx, q, 'updating', `updating ${tk} from ${base.baseBranch} (${short(base.head)})`)
  try {
    const r = await updateBranch(
      h,
      ctx,
      { taskId: makeId(ctx.wsId, 'task', task.id), assignee: base.overlap },
      queueTurn,
    )
    if (r.outcome === 'conflict') {
      setState(
        ctx,
        q,
        'conflict',
        `${tk} conflicts with ${base.baseBranch} in ${r.conflicts.map((c) => c.file).join(', ')}: waiting for ${r.turn?.memberName ?? who} to resolve it`,
      )
      return 'wait'
    }
  } catch (err) {
    setState(ctx, q, 'blocked', err instanceof Error ? err.message : String(err))
    return 'wait'
  }
  return 'next'
}

/**
 * A delivered task whose evidence on the head passes is accepted again by the queued intent (3.: the user's Merge
 * click, recorded as such); one whose evidence lacks waits for the members asked for it.
 */
function acceptIfVerified(ctx: Ctx, { q, task, who }: Entry, fresh: TaskRow, queueTurn: QueueTurn | undefined): Step {
  const readiness = readinessOfTask(ctx.wsId, ctx.store, fresh)
  if (!readiness.ready) {
    askVerifiers(ctx, fresh, readiness.reasons, queueTurn)
    const waits = readiness.reasons
      .filter((r) => r.reportKind)
      .map((r) =>
        r.code === 'evidence_missing' && r.reportId
          ? `${who} to fix what ${authorName(ctx, r.reportId)}'s ${r.reportKind} found`
          : `${r.action?.memberName ?? 'a member'}'s ${r.reportKind} on ${short(fresh.artifact_commit)}`,
      )
    setState(
      ctx,
      q,
      'verifying',
      waits.length
        ? `waiting for ${[...new Set(waits)].join(' and ')}`
        : `waiting: ${readiness.reasons.map((r) => r.message).join('; ')}`,
    )
    return 'wait'
  }
  try {
    acceptTask(
      ctx,
      { taskId: makeId(ctx.wsId, 'task', task.id), actorId: queuedBy(ctx, q) },
      { mergeQueue: { queuedBy: q.queued_by, queuedAt: q.queued_at } },
    )
  } catch (err) {
    setState(ctx, q, 'blocked', err instanceof Error ? err.message : String(err))
    return 'wait'
  }
  return 'next'
}

/** The merge itself; the base moved again meanwhile: the next round updates it again. Anything else waits for the user. */
async function land(h: Harness, ctx: Ctx, q: MergeQueueRow, taskRowId: number): Promise<Step> {
  try {
    await landAccepted(
      h,
      ctx,
      {
        taskId: makeId(ctx.wsId, 'task', taskRowId),
        strategy: q.strategy as TaskMergeQueue['strategy'],
        actorId: queuedBy(ctx, q),
      },
      { fromQueue: true },
    )
  } catch (err) {
    if (err instanceof ApiError && err.code === 'base_moved') return 'next'
    setState(ctx, q, 'blocked', err instanceof Error ? err.message : String(err))
    return 'wait'
  }
  return 'next'
}

const queuedBy = (ctx: Ctx, q: MergeQueueRow): string | undefined =>
  q.queued_by === null ? undefined : makeId(ctx.wsId, 'member', q.queued_by)

/** Sets the entry's state and message; tells the card only when they changed (no event loop with our own listener). */
function setState(ctx: Ctx, q: MergeQueueRow, state: MergeQueueRow['state'], message: string): void {
  if (q.state === state && q.message === message) return
  ctx.store.transaction(() => ctx.store.mergeQueue.setState(q.task_id, state, message, now()))
  q.state = state
  q.message = message
  const row = ctx.store.tasks.get(q.task_id)
  if (row)
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, row), readinessOnly: true })
}

/** Leaves the queue for a reason the user did not choose (the task was cancelled, archived, merged by hand). */
function drop(ctx: Ctx, q: MergeQueueRow, reason: string): Step {
  ctx.store.transaction(() => {
    ctx.store.mergeQueue.remove(q.task_id)
    ctx.store.log.appendEvent('task.merge_unqueued', { taskId: q.task_id, by: null, reason }, now())
  })
  const row = ctx.store.tasks.get(q.task_id)
  if (row) ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, row) })
  return 'next'
}
