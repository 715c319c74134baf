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
import { join } from 'node:path'
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Task, TaskMergeQueue } from '../../../../shared/schemas'
import { checkAgainstBase } from '../../repo/base-check'
import { treeMidOperation } from '../../repo/branch-update'
import { isOwnTree } from '../../repo/git-repo'
import type { MergeQueueRow } from '../../store/merge-queue-repo'
import type { MemberRow } from '../../store/members-repo'
import { actorOf, requireDecider, taskRow, type Actor, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now, parseId } from '../ids'
import { readinessOfTask, toTask } from '../mappers'
import { baseHead, scheduleBaseCheck } from '../workspace/base-moves'
import { workspaceSettings } from '../workspace/workspace-settings'
import { acceptTask } from './acceptance'
import { landAccepted } from './task-merge'
import { updateBranch, type QueueTurn } from './task-update'

type MergeStrategy = TaskMergeQueue['strategy']

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : '?')

interface Queues {
  queueTurn?: QueueTurn
  running: Map<string, { promise: Promise<void>; again: boolean }>
}
const byHarness = new WeakMap<Harness, Queues>()
const closed = new WeakSet<Harness>()

/**
 * Once per harness (api/handlers.ts): the runtime's automatic turns, and the events that move a queue. What a queue
 * does runs after the event's own work, off its caller's path.
 */
export function installMergeQueue(h: Harness, queueTurn?: QueueTurn): void {
  if (byHarness.has(h)) return
  const q: Queues = { queueTurn, running: new Map() }
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
  const running = q.running.get(wsId)
  if (running) {
    running.again = true
    return running.promise
  }
  const entry = { promise: Promise.resolve(), again: false }
  entry.promise = (async () => {
    do {
      entry.again = false
      if (closed.has(h)) return
      try {
        const ctx = h.ctx(wsId)
        if (!ctx.store.db.open) return
        await advance(h, ctx, q.queueTurn)
      } catch (err) {
        if (!closed.has(h) && !(err instanceof Error && /not open|closed/i.test(err.message)))
          console.error('the merge queue failed:', err instanceof Error ? err.message : err)
      }
    } while (entry.again)
  })().finally(() => q.running.delete(wsId))
  q.running.set(wsId, entry)
  return entry.promise
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
function drop(ctx: Ctx, q: MergeQueueRow, reason: string): void {
  ctx.store.transaction(() => {
    ctx.store.mergeQueue.remove(q.task_id)
    ctx.store.log.appendEvent('task.merge_unqueued', { taskId: q.task_id, by: null, reason }, now())
  })
  const row = ctx.store.tasks.get(q.task_id)
  if (row) ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, row) })
}

/** Works on the queue's first entry until it waits for someone (or the queue is empty). */
async function advance(h: Harness, ctx: Ctx, queueTurn: QueueTurn | undefined): Promise<void> {
  for (let guard = 0; guard < 50; guard++) {
    const entries = ctx.store.mergeQueue.list()
    const first = entries[0]
    if (!first) return
    // The others wait behind it: said on their cards.
    for (const other of entries.slice(1))
      setState(ctx, other, 'waiting', `queued to merge after ${makeKey('task', first.task_id)}`)
    const task = ctx.store.tasks.get(first.task_id)
    const branch = ctx.store.branches.get(first.task_id)
    const tk = makeKey('task', first.task_id)
    if (!task || task.archived_at || !branch) {
      drop(ctx, first, 'gone')
      continue
    }
    if (branch.merged_commit) {
      drop(ctx, first, 'merged')
      continue
    }
    if (!['in_progress', 'delivered', 'accepted'].includes(task.status)) {
      drop(ctx, first, task.status)
      continue
    }
    const assignee = task.assignee_id === null ? null : ctx.store.members.get(task.assignee_id)
    const who = assignee?.name ?? 'its assignee'
    if (!branch.worktree || !isOwnTree(branch.worktree)) {
      setState(ctx, first, 'blocked', `${tk} has no tree to update; start it again`)
      return
    }
    const mid = treeMidOperation(branch.worktree)
    if (mid) {
      // The update's own message (the files, who resolves them) stays while the tree is in the merge.
      if (first.state === 'conflict') return
      setState(ctx, first, 'conflict', `waiting for ${who} to resolve ${tk}'s conflict with the base branch`)
      return
    }
    if (task.status === 'in_progress') {
      setState(ctx, first, 'conflict', `waiting for ${who} to deliver ${tk} again`)
      return
    }
    const settings = workspaceSettings(ctx)
    const repo = h.workspace(ctx.wsId).repoPath
    const head = settings.baseBranch ? await baseHead(repo, settings.baseBranch) : null
    if (!head || !task.artifact_commit) {
      setState(ctx, first, 'blocked', `${tk} has no commit to merge, or the base branch none to merge into`)
      return
    }
    const scratch = join(h.registry.dataDir, 'scratch', ctx.wsId, 'base')
    const check = await checkAgainstBase(repo, branch.worktree, head, task.artifact_commit, scratch)
    if (!check) {
      setState(ctx, first, 'blocked', `git could not compare ${tk} with ${settings.baseBranch}`)
      return
    }
    if (!check.landsAsChecked) {
      // 1. Brought up to date. Files in common: its assignee is told (a turn on the updated tree) and everything is
      // verified again; none: only the test is run again (the review carries over, task-update.ts).
      setState(ctx, first, 'updating', `updating ${tk} from ${settings.baseBranch} (${short(head)})`)
      const overlap = check.both.length > 0 || Boolean(check.conflicts)
      try {
        const r = await updateBranch(
          h,
          ctx,
          { taskId: makeId(ctx.wsId, 'task', task.id), assignee: overlap },
          queueTurn,
        )
        if (r.outcome === 'conflict') {
          setState(
            ctx,
            first,
            'conflict',
            `${tk} conflicts with ${settings.baseBranch} in ${r.conflicts.map((c) => c.file).join(', ')}: waiting for ${r.turn?.memberName ?? who} to resolve it`,
          )
          return
        }
      } catch (err) {
        setState(ctx, first, 'blocked', err instanceof Error ? err.message : String(err))
        return
      }
      continue
    }
    // 2. Verified on the tree that would land? The base check is brought up to date first (readiness reads it).
    await scheduleBaseCheck(h, ctx.wsId)
    const fresh = ctx.store.tasks.get(task.id)!
    if (fresh.status === 'delivered') {
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
          first,
          'verifying',
          waits.length
            ? `waiting for ${[...new Set(waits)].join(' and ')}`
            : `waiting: ${readiness.reasons.map((r) => r.message).join('; ')}`,
        )
        return
      }
      // 3. Accepted again by the queued intent: the user's Merge click, recorded as such.
      try {
        acceptTask(
          ctx,
          {
            taskId: makeId(ctx.wsId, 'task', task.id),
            actorId: first.queued_by === null ? undefined : makeId(ctx.wsId, 'member', first.queued_by),
          },
          { mergeQueue: { queuedBy: first.queued_by, queuedAt: first.queued_at } },
        )
      } catch (err) {
        setState(ctx, first, 'blocked', err instanceof Error ? err.message : String(err))
        return
      }
    }
    try {
      await landAccepted(
        h,
        ctx,
        {
          taskId: makeId(ctx.wsId, 'task', task.id),
          strategy: first.strategy as MergeStrategy,
          actorId: first.queued_by === null ? undefined : makeId(ctx.wsId, 'member', first.queued_by),
        },
        { fromQueue: true },
      )
    } catch (err) {
      // The base moved again meanwhile: the next round updates it again. Anything else waits for the user.
      if (err instanceof ApiError && err.code === 'base_moved') continue
      setState(ctx, first, 'blocked', err instanceof Error ? err.message : String(err))
      return
    }
  }
}

/**
 * The members whose report the queued merge waits for get their automatic turn on the updated head, whatever the
 * autoTurns setting (the user's Merge asked for it). A stale report's author gets it under the trigger the automatic
 * turns use for a stale report (auto-turns.ts staleAuthors), so one change never starts two turns.
 */
function askVerifiers(
  ctx: Ctx,
  task: NonNullable<ReturnType<Ctx['store']['tasks']['get']>>,
  reasons: ReturnType<typeof readinessOfTask>['reasons'],
  queueTurn: QueueTurn | undefined,
): void {
  if (!queueTurn) return
  const tk = makeKey('task', task.id)
  const links = ctx.store.tasks.links(task.id)
  const versions = links.map((l) => `${l.decision_id}v${l.current_version}`).join(',')
  for (const r of reasons) {
    if (!r.reportKind || !r.action?.memberId) continue
    const member = parseId(r.action.memberId, 'member', 'memberId').n
    if (r.code === 'evidence_stale' && r.reportId) {
      const n = parseId(r.reportId, 'report', 'reportId').n
      const report = ctx.store.reports.get(n)
      if (!report || report.author_id === null) continue
      queueTurn(ctx.wsId, report.author_id, task.id, `stale:${task.id}:${n}:${task.artifact_commit}:${versions}`, [
        `${tk} is queued to merge, and its branch was brought up to date with the base: its head is now ${short(task.artifact_commit)}.`,
        `Your ${makeKey('report', n)} (${report.kind}) no longer supports ${tk}: ${r.message}. Re-verify ${tk} on ${short(task.artifact_commit)} and submit a new ${report.kind} report; Concord merges it once the evidence passes.`,
      ])
    } else if (r.code === 'evidence_missing' && r.reportId) {
      // A report that fails on the head itself (not one made stale by a new head, whose author re-verifies above):
      // the assignee fixes it, delivers again, and the queue has it verified again.
      if (reasons.some((o) => o.code === 'evidence_stale' && o.reportId === r.reportId)) continue
      const n = parseId(r.reportId, 'report', 'reportId').n
      const report = ctx.store.reports.get(n)
      if (!report || task.assignee_id === null) continue
      const summary = report.summary.trim().split('\n')[0]!.slice(0, 300)
      queueTurn(ctx.wsId, task.assignee_id, task.id, `fix:${task.id}:${n}`, [
        `${tk} is queued to merge, and ${authorName(ctx, r.reportId)}'s ${report.kind} report ${makeKey('report', n)} on ${short(report.artifact_commit)} fails: ${summary}`,
        `Fix ${tk} in your tree, commit, and deliver it again (update_task_status delivered); Concord has it verified again and merges it once the evidence passes.`,
      ])
    } else if (r.code === 'evidence_missing' && !r.reportId) {
      queueTurn(ctx.wsId, member, task.id, `verify:${task.id}:${task.artifact_commit}:${r.reportKind}`, [
        `${tk} is queued to merge on ${short(task.artifact_commit)}, and it has no ${r.reportKind} report there.`,
        `Check ${tk} on ${short(task.artifact_commit)} and submit a ${r.reportKind} report; Concord merges it once the evidence passes.`,
      ])
    }
  }
}

/** The name of a report's author, for the queue's words. */
function authorName(ctx: Ctx, reportId: string): string {
  const report = ctx.store.reports.get(parseId(reportId, 'report', 'reportId').n)
  const author = report?.author_id == null ? undefined : ctx.store.members.get(report.author_id)
  return author?.name ?? 'a member'
}
