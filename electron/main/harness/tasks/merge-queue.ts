/**
 * Verified merges (issue 30): the base branch only ever receives a tree that a passing test report checked (and the
 * review the task requires). With the workspace setting `merges: verified` (default), tasks.merge on a task whose
 * merge would land another tree than its checked commit's (the base moved since) does not land it: it queues it here,
 * in the workspace's merge queue (store: merge_queue, so a queue survives a restart and is resumed at the next start).
 *
 * The queue, one per workspace, in order; only its first entry is worked on, so each merge is verified on top of the
 * one before (the second is updated only once the first landed):
 * 1. the task's branch is brought up to date with the base (tasks.updateBranch; a conflict goes to its assignee's
 *    automatic turn as it does there, and the queue waits for the resolved delivery);
 * 2. the update delivers it again on the new head: its reports no longer count (the targeted rule, task-update.ts:
 *    a review carries over when no file is in common, the test never does). The members who write the missing
 *    reports get their automatic turn (the same trigger as a stale report's, so never two);
 * 3. once passing evidence is on the head and merging it lands exactly that head's tree, the task is accepted again by
 *    the queued intent (the user's click on Merge; recorded as such) and merged. Then the next.
 * The user takes a task out with tasks.unqueueMerge. Work runs off the request path, one pass at a time per
 * workspace, on the events that can move it (a task changed, a report came in) and at start.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task, TaskMergeQueue } from '../../../../shared/schemas'
import type { MemberRow } from '../../store/members-repo'
import { actorOf, requireDecider, taskRow, type Actor, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { runOnePass, type Pass } from '../one-pass'
import { advance } from './merge-queue-advance'
import { landAccepted } from './task-merge'
import type { QueueTurn } from './task-update'

type MergeStrategy = TaskMergeQueue['strategy']

interface Queues {
  queueTurn?: QueueTurn
  /** Each workspace's pass over its queue. */
  passes: Map<string, Pass>
}
const byHarness = new WeakMap<Harness, Queues>()
const closed = new WeakSet<Harness>()

/**
 * Once per harness (api/handlers.ts): the runtime's automatic turns, and the events that move a queue. What a queue
 * does runs after the event's own work, off its caller's path.
 */
export function installMergeQueue(h: Harness, queueTurn?: QueueTurn): void {
  if (byHarness.has(h)) return
  const q: Queues = { queueTurn, passes: new Map() }
  byHarness.set(h, q)
  const off = h.bus.on((e) => {
    const ws =
      e.event === 'task.changed'
        ? e.payload.workspaceId
        : e.event === 'report.submitted'
          ? e.payload.report.workspaceId
          : null
    if (!ws) return
    setImmediate(() => {
      if (closed.has(h)) return
      try {
        if (h.ctx(ws).store.mergeQueue.list().length) void scheduleMergeQueue(h, ws)
      } catch {
        // The workspace closed meanwhile: its queue resumes at the next start.
      }
    })
  })
  h.onClose(() => {
    closed.add(h)
    off()
  })
}

/** At start: every workspace's queue resumes where it was. */
export function resumeMergeQueues(h: Harness): void {
  // Closed before it ran (a core opened and closed at once): nothing to resume, its database is gone.
  if (closed.has(h)) return
  for (const w of h.listWorkspaces()) {
    try {
      if (h.ctx(w.id).store.mergeQueue.list().length) void scheduleMergeQueue(h, w.id)
    } catch (err) {
      console.error(`could not resume the merge queue of ${w.name}:`, err instanceof Error ? err.message : err)
    }
  }
}

/** One pass over the workspace's queue at a time; asked for while one runs, it runs once more after it. */
export function scheduleMergeQueue(h: Harness, wsId: string): Promise<void> {
  const q = byHarness.get(h)
  if (!q) return Promise.resolve()
  let pass = q.passes.get(wsId)
  if (!pass) q.passes.set(wsId, (pass = { running: null, again: false }))
  return runOnePass(h, wsId, pass, {
    closed: () => closed.has(h),
    run: (ctx) => advance(h, ctx, q.queueTurn),
    failed: (err) => {
      if (!(err instanceof Error && /not open|closed/i.test(err.message)))
        console.error('the merge queue failed:', err instanceof Error ? err.message : err)
    },
  })
}

/**
 * tasks.merge: lands an accepted task (task-merge.ts), or with merges: verified queues it when its merge would not land
 * its checked tree.
 */
export async function mergeTask(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.merge'>): Promise<Task> {
  const outcome = await landAccepted(h, ctx, p)
  if ('task' in outcome) return outcome.task
  const task = taskRow(ctx, p.taskId)
  return enqueueMerge(h, ctx, task.id, actorOf(ctx, p.actorId), p.strategy ?? 'merge', outcome.queueBecause)
}

/**
 * tasks.merge with merges: verified, for an accepted task whose merge would not land its checked tree (or behind other
 * queued merges): queued, and the answer says what it waits for. Refused with merge_unverifiable when no member can
 * take the turn that verifies it.
 */
export function enqueueMerge(
  h: Harness,
  ctx: Ctx,
  taskRowId: number,
  actor: Actor,
  strategy: MergeStrategy,
  why: string,
): Task {
  const task = ctx.store.tasks.get(taskRowId)!
  const tk = makeKey('task', task.id)
  if (!ctx.store.mergeQueue.get(task.id)) {
    const missing = unverifiable(ctx, task.required_reports, task.assignee_id)
    if (missing.length)
      throw new ApiError(
        'merge_unverifiable',
        `${tk} cannot be merged as verified: ${why}, and no member can verify it again (${missing.map((k) => `no ${k === 'implementation' ? 'assignee' : k === 'test' ? 'tester' : 'reviewer'} with a model or agent`).join('; ')}). Add one, or set merges to as-accepted to land what was accepted`,
        { reason: 'no_verifier', needs: missing },
      )
    const at = now()
    ctx.store.transaction(() => {
      ctx.store.mergeQueue.add({
        task_id: task.id,
        strategy,
        queued_by: actor.memberId,
        queued_at: at,
        state: 'waiting',
        message: `${why}: to be updated and verified again`,
        updated_at: at,
      })
      ctx.store.log.appendEvent('task.merge_queued', { taskId: task.id, queuedBy: actor.memberId, strategy, why }, at)
    })
  }
  const dto = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(task.id)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  void scheduleMergeQueue(h, ctx.wsId)
  return dto
}

/** tasks.unqueueMerge: the task leaves the queue; it stays as it is (delivered or accepted, its tree updated or not). */
export function unqueueMerge(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.unqueueMerge'>): Task {
  const actor = actorOf(ctx, p.actorId)
  requireDecider(actor, 'take a merge out of the queue')
  const task = taskRow(ctx, p.taskId)
  const removed = ctx.store.transaction(() => {
    const gone = ctx.store.mergeQueue.remove(task.id)
    if (gone)
      ctx.store.log.appendEvent(
        'task.merge_unqueued',
        { taskId: task.id, by: actor.memberId, reason: 'cancelled' },
        now(),
      )
    return gone
  })
  if (!removed)
    throw new ApiError('invalid_transition', `${makeKey('task', task.id)} is not queued to merge`, {
      reason: 'not_queued',
    })
  const dto = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(task.id)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  // The next one in the queue goes on.
  void scheduleMergeQueue(h, ctx.wsId)
  return dto
}

/** A member Concord can start a turn for. */
const canWork = (m: MemberRow) => !m.archived_at && Boolean(m.agent || (m.provider_kind && m.provider_model))

/** The report kinds the task requires that no member could write again (the same role match as readiness). */
function unverifiable(ctx: Ctx, required: string, assigneeId: number | null): string[] {
  const members = ctx.store.members.list().filter(canWork)
  const out: string[] = []
  for (const kind of JSON.parse(required) as string[]) {
    if (kind === 'implementation') {
      if (!members.some((m) => m.id === assigneeId)) out.push(kind)
      continue
    }
    const role = kind === 'test' ? /test|qa|verif/i : /review/i
    if (!members.some((m) => role.test(m.role) || role.test(m.name))) out.push(kind)
  }
  return out
}
