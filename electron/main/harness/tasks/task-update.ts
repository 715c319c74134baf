/**
 * tasks.updateBranch (issue 30, "Updating a task's branch"): the base branch's current head brought into a task's
 * tree (repo/branch-update.ts: merge, or rebase per the workspace setting `updates`; in the sandbox, hooks off, as you).
 *
 * - Clean: the tree's head moves, and the task's branch in your repository with it; the tree's base is recorded as
 *   the base's head (task_branches.base_commit and its history, tree_bases). A delivered or accepted task is then
 *   what a new commit after delivery makes it today: delivered again on the new head (an accepted one loses its
 *   acceptance, as a decision change revokes it). Its reports stay on the commit they checked, for the record, and no
 *   longer count: readiness says they checked another commit (evidence_stale), and their authors get the automatic
 *   turn a stale report gets.
 * - Conflict: nothing is left half-done unless its assignee takes it — then the tree stays in the merge (markers,
 *   MERGE_HEAD) and the assignee gets an automatic turn naming the files and both sides' commits; it resolves,
 *   commits and delivers again. With no assignee that can take a turn, the merge is aborted: merge_conflict.
 * - The targeted rule: an update that changes none of the task's own files (no file in common with the base's move)
 *   leaves the task's own diff as it was: its reviews (and their claims) carry over to the new head, and only the
 *   test is run again on the new tree (only the tester's report is stale). Where files overlap, everything is checked
 *   again (test and review). Either way the tree that would land is checked before it lands (verified merges).
 * - A head that still holds conflict markers is refused (conflict_markers), here and on delivery (task-status.ts).
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { BranchUpdate } from '../../../../shared/schemas'
import { runTreeGit } from '../../platform/tree-git'
import { filesWithConflictMarkers, treeMidOperation, updateTree, type TreeUpdate } from '../../repo/branch-update'
import { carryIdentity, identityEnv, resolveIdentity } from '../../repo/git-identity'
import { isOwnTree, objectsOf, treeHead } from '../../repo/git-repo'
import { filesInCommon } from '../../repo/merge-base-files'
import { actorOf, requireAssigneeOrDecider, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { baseHead, checkedStatuses, scheduleBaseCheck } from '../workspace/base-moves'
import { refreshHead } from '../workspace/task-branches'
import { workspaceSettings } from '../workspace/workspace-settings'

/**
 * The runtime queues an automatic turn for a member on a task (auto-turns.ts), once per trigger; null when the
 * member cannot take one (no model or agent, archived). stepId is null when that trigger already had its turn.
 */
export type QueueTurn = (
  wsId: string,
  memberRowId: number,
  taskRowId: number,
  trigger: string,
  lines: string[],
) => { stepId: number | null } | null

/** One update per task at a time. */
const updating = new Set<string>()

const short = (sha: string) => sha.slice(0, 7)

type TaskRow = ReturnType<typeof taskRow>
type MemberRow = NonNullable<ReturnType<Ctx['store']['members']['get']>>
type UpdateBase = Omit<BranchUpdate, 'outcome' | 'turn' | 'conflicts'>

export async function updateBranch(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.updateBranch'>,
  queueTurn?: QueueTurn,
): Promise<BranchUpdate> {
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  requireAssigneeOrDecider(actorOf(ctx, p.actorId), task.assignee_id, tk, 'update')
  const { settings, tree } = updatableTree(ctx, task, tk)
  const repo = h.workspace(ctx.wsId).repoPath
  const main = settings.baseBranch!
  const lock = `${ctx.wsId}:${task.id}`
  if (updating.has(lock))
    throw new ApiError('update_blocked', `${tk} is being updated already; wait for it to finish`, { reason: 'running' })
  updating.add(lock)
  try {
    refuseMidOperation(tree, task, tk)
    const head = await baseHead(repo, main)
    if (!head) throw new ApiError('update_blocked', `the base branch ${main} has no commit`, { reason: 'no_base' })
    const assignee = task.assignee_id === null ? undefined : ctx.store.members.get(task.assignee_id)
    // A conflict stays in the tree only for an assignee that can take a turn; the runtime says whether one can.
    const handOver = Boolean(assignee && queueTurn)
    const message = `Merge ${main} (${short(head)}) into ${tk}`
    const { before, common, done } = await bringBaseIn(repo, tree, head, settings.updates, message, handOver)
    const base = (row: ReturnType<typeof toTask>): UpdateBase => ({
      mode: settings.updates,
      baseBranch: main,
      baseHead: head,
      from: done.from,
      head: done.head,
      task: row,
    })
    if (done.outcome === 'conflict') return await conflicted(h, ctx, task.id, done, head, main, queueTurn, base)

    await refuseMarkers(repo, tree, tk, done.head)
    if (done.outcome === 'current') {
      const row = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(task.id)!)
      return { outcome: 'current', conflicts: [], turn: null, ...base(row) }
    }
    const row = await recordUpdate(h, ctx, task.id, tk, { head, before, common, done, mode: settings.updates })
    const turn =
      p.assignee && assignee && queueTurn ? updateTurn(ctx, queueTurn, assignee, task.id, main, done, row.status) : null
    const dto = toTask(ctx.wsId, ctx.store, row)
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
    void scheduleBaseCheck(h, ctx.wsId)
    return { outcome: 'updated', conflicts: [], turn, ...base(dto) }
  } finally {
    updating.delete(lock)
  }
}

/** The task's own tree, when it has one that an update can move (in progress, delivered or accepted, not merged). */
function updatableTree(ctx: Ctx, task: TaskRow, tk: string) {
  if (!checkedStatuses.includes(task.status))
    throw new ApiError(
      'invalid_transition',
      `${tk} is ${task.status}: only a task in progress, delivered or accepted (and not merged) has a branch to update`,
    )
  const settings = workspaceSettings(ctx)
  const branch = ctx.store.branches.get(task.id)
  if (settings.isolation !== 'worktree' || !settings.baseBranch || !branch)
    throw new ApiError(
      'invalid_transition',
      `${tk} has no branch of its own in this workspace: there is nothing to update`,
    )
  if (branch.merged_commit) throw new ApiError('invalid_transition', `${tk} was already merged`)
  if (!branch.worktree || branch.state !== 'ready' || !isOwnTree(branch.worktree))
    throw new ApiError(
      'update_blocked',
      `${tk} has no tree to update (it was removed); start it again to have its tree made again`,
      {
        reason: 'no_tree',
      },
    )
  return { settings, tree: branch.worktree }
}

function refuseMidOperation(tree: string, task: TaskRow, tk: string): void {
  const mid = treeMidOperation(tree)
  if (mid)
    throw new ApiError(
      'update_blocked',
      `${tk}'s tree is in the middle of ${mid}: ${task.assignee_id === null ? 'finish or abort it there' : 'its assignee resolves and commits it'} before it can be updated`,
      { reason: 'in_progress' },
    )
}

/** The base's head merged (or rebased) into the tree, and the files both changed, read before. */
async function bringBaseIn(
  repo: string,
  tree: string,
  head: string,
  mode: ReturnType<typeof workspaceSettings>['updates'],
  message: string,
  leaveConflict: boolean,
): Promise<{ before: string | null; common: string[] | null; done: TreeUpdate }> {
  // Who the merge commit is by: you, as git names you in your checkout (carried into the tree's own config too).
  await carryIdentity(repo, tree)
  const identity = await resolveIdentity(repo)
  // The targeted rule: the files the task and the base's move both changed, read before the update (after it, the
  // base's changes are part of the task's history). None: the task's own diff stays as it was reviewed.
  const before = await treeHead(tree)
  const common = before ? await filesInCommon(repo, tree, head, before) : null
  const done = await updateTree(tree, head, {
    mode,
    message,
    env: identity ? identityEnv(identity) : {},
    readable: await objectsOf(repo),
    leaveConflict,
  })
  return { before, common, done }
}

/** A head (new, or current already) that still has markers is not an update anyone can build on. */
async function refuseMarkers(repo: string, tree: string, tk: string, head: string): Promise<void> {
  const readable = await objectsOf(repo)
  const marked = await filesWithConflictMarkers(
    (args) => runTreeGit(tree, args, { allowFailure: true, sandboxed: true, readable }),
    head,
  )
  if (marked.length) throw markersRefused(tk, head, marked)
}

interface Updated {
  head: string
  before: string | null
  common: string[] | null
  done: TreeUpdate
  mode: BranchUpdate['mode']
}

/** The new base recorded, the branch brought into your repository, and the task delivered again on its new head. */
async function recordUpdate(h: Harness, ctx: Ctx, taskRowId: number, tk: string, u: Updated): Promise<TaskRow> {
  const { head, before, common, done } = u
  // The tree's base is the base's head now: the task's branch in your repository descends from it.
  ctx.store.transaction(() => {
    ctx.store.branches.setBase(taskRowId, head, now())
    // No file in common with the base's move: its reviews carry over to the new head (readiness.ts carriedTo);
    // its tests do not: the tree is new, what was tested is tested again.
    if (common !== null && common.length === 0 && done.from === before)
      ctx.store.mergeQueue.carry(taskRowId, done.head, done.from, now())
  })
  const synced = await refreshHead(h, ctx, taskRowId)
  if (synced?.head !== done.head)
    throw new ApiError(
      'io_error',
      `${tk}'s tree moved to ${short(done.head)}, but its branch could not be brought into your repository`,
    )
  return ctx.store.transaction(() => {
    const current = ctx.store.tasks.get(taskRowId)!
    ctx.store.log.appendEvent(
      'task.updated',
      {
        taskId: taskRowId,
        base: head,
        from: done.from,
        to: done.head,
        mode: u.mode,
        overlaps: common,
        reviewsCarried: common !== null && common.length === 0,
      },
      now(),
    )
    // Delivered or accepted: delivered again on the new head, as a new commit after delivery is.
    if (current.status === 'delivered' || current.status === 'accepted') {
      ctx.store.tasks.update({
        ...current,
        status: 'delivered',
        artifact_commit: done.head,
        artifact_digest: null,
        updated_at: now(),
      })
      ctx.store.log.appendEvent(
        'task.status',
        {
          taskId: taskRowId,
          from: current.status,
          to: 'delivered',
          commit: done.head,
          digest: null,
          reason: 'updated',
        },
        now(),
      )
    }
    return ctx.store.tasks.get(taskRowId)!
  })
}

/** The assignee's turn on the updated tree: test it, fix what the new base broke, report or deliver. */
function updateTurn(
  ctx: Ctx,
  queueTurn: QueueTurn,
  assignee: MemberRow,
  taskRowId: number,
  main: string,
  done: TreeUpdate,
  status: string,
): BranchUpdate['turn'] {
  const tk = makeKey('task', taskRowId)
  const queued = queueTurn(ctx.wsId, assignee.id, taskRowId, `update:${taskRowId}:${done.head}`, [
    `${main} moved, and Concord brought it into ${tk}'s tree: its head is now ${short(done.head)} (was ${short(done.from)}).`,
    `Run the tests on the updated tree, fix and commit what the new ${main} broke, then ${status === 'delivered' ? 'submit your report on the new head' : `deliver ${tk}`}.`,
  ])
  if (!queued) return null
  const turn = {
    memberId: makeId(ctx.wsId, 'member', assignee.id),
    memberName: assignee.name,
    stepId: null as string | null,
  }
  if (queued.stepId) turn.stepId = makeId(ctx.wsId, 'step', queued.stepId)
  return turn
}

/** The conflict handed to the assignee (the tree stays in the merge), or put back and refused when no one can take it. */
async function conflicted(
  h: Harness,
  ctx: Ctx,
  taskRowId: number,
  done: TreeUpdate,
  head: string,
  main: string,
  queueTurn: QueueTurn | undefined,
  base: (row: ReturnType<typeof toTask>) => UpdateBase,
): Promise<BranchUpdate> {
  const task = ctx.store.tasks.get(taskRowId)!
  const tk = makeKey('task', task.id)
  const files = done.conflicts.map((c) => c.file)
  const assignee = task.assignee_id === null ? undefined : ctx.store.members.get(task.assignee_id)
  const sides = done.conflicts.map(
    (c) => `- ${c.file}\n  ${main}: ${c.base.join('; ') || '(changed)'}\n  ${tk}: ${c.task.join('; ') || '(changed)'}`,
  )
  const queued =
    assignee && queueTurn
      ? queueTurn(ctx.wsId, assignee.id, task.id, `conflict:${task.id}:${head}:${done.from}`, [
          `${main} moved and conflicts with ${tk}: Concord started merging ${main} (${short(head)}) into your tree, and git stopped on conflicts in ${files.join(', ')}.`,
          `The conflicting files, with the commits on each side that changed them:\n${sides.join('\n')}`,
          `Your tree is in the middle of that merge (conflict markers in those files, MERGE_HEAD set). Resolve each file keeping what both sides meant, commit (git_commit concludes the merge), run the tests, then deliver ${tk} again. Concord refuses a head that still holds conflict markers.`,
        ])
      : null
  if (!queued) {
    // No one takes it: put the tree back as it was (a merge left for nobody would block the tree).
    const readable = await objectsOf(h.workspace(ctx.wsId).repoPath)
    await runTreeGit(ctx.store.branches.get(taskRowId)!.worktree!, ['merge', '--abort'], {
      write: true,
      allowFailure: true,
      readable,
    })
    throw new ApiError(
      'merge_conflict',
      `${tk} conflicts with ${main} in ${files.join(', ')}; nothing was changed. ${assignee ? `${assignee.name} cannot take a turn (no model or agent)` : `${tk} has no assignee`} to resolve it: resolve it in the task's tree and commit`,
      { paths: files, conflicts: done.conflicts },
    )
  }
  // An accepted task is not what would land any more: its acceptance goes, as a new delivery will be needed.
  const row = ctx.store.transaction(() => {
    const current = ctx.store.tasks.get(taskRowId)!
    ctx.store.log.appendEvent('task.update_conflict', { taskId: taskRowId, base: head, files }, now())
    if (current.status === 'accepted') {
      ctx.store.tasks.update({ ...current, status: 'delivered', updated_at: now() })
      ctx.store.log.appendEvent(
        'task.status',
        {
          taskId: taskRowId,
          from: 'accepted',
          to: 'delivered',
          commit: current.artifact_commit,
          digest: current.artifact_digest,
          reason: 'update_conflict',
        },
        now(),
      )
    }
    return ctx.store.tasks.get(taskRowId)!
  })
  const dto = toTask(ctx.wsId, ctx.store, row)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  return {
    outcome: 'conflict',
    conflicts: done.conflicts,
    turn: {
      memberId: makeId(ctx.wsId, 'member', assignee!.id),
      memberName: assignee!.name,
      stepId: queued.stepId === null ? null : makeId(ctx.wsId, 'step', queued.stepId),
    },
    ...base(dto),
  }
}

/** conflict_markers: the head named, and the files that still hold markers. */
export function markersRefused(tk: string, commit: string, files: string[]): ApiError {
  return new ApiError(
    'conflict_markers',
    `${tk}'s head ${short(commit)} still holds conflict markers in ${files.slice(0, 20).join(', ')}${files.length > 20 ? ` and ${files.length - 20} more` : ''}: resolve them, commit, and try again`,
    { commit, files },
  )
}
