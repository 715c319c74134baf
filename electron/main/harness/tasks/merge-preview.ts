/**
 * tasks.mergePreview: what merging a task does, named before the user clicks Merge (issue 30) — whether it can land
 * now (the same refusals as tasks.merge: a conflict, or a base that moved since its evidence), the files it brings to
 * the base branch, and what that move does to every other open task: one that changed the same files overlaps and
 * needs updating and verifying again; a delivered or accepted one without a file in common needs its tree verified
 * again on the new base (what would land is no longer what its reports checked); one in progress falls behind.
 * Reads only: git runs in the tasks' trees through the sandboxed helpers of repo/base-check.ts; nothing is written.
 */
import { join } from 'node:path'
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { MergePreview } from '../../../../shared/schemas'
import { checkAgainstBase } from '../../repo/base-check'
import { changedSinceBase } from '../../repo/merge-base-files'
import { isOwnTree, treeHead } from '../../repo/git-repo'
import { taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey } from '../ids'
import { baseCheckedStatuses } from '../mappers'
import { baseHead } from '../workspace/base-moves'
import { workspaceSettings } from '../workspace/workspace-settings'
import type { TaskRow } from '../../store/tasks-repo'

const listed = (files: string[]) =>
  files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ')

export async function mergePreview(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.mergePreview'>): Promise<MergePreview> {
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  const branch = ctx.store.branches.get(task.id)
  if (!branch?.worktree || branch.merged_commit || !isOwnTree(branch.worktree))
    throw new ApiError(
      'invalid_transition',
      `${tk} has no open tree of its own (${branch?.merged_commit ? 'it was merged' : 'not started here, or a shared workspace'}): there is no merge to preview`,
    )
  if (branch.merging) throw beingMerged(tk)
  try {
    return await preview(h, ctx, task, branch.worktree)
  } catch (err) {
    // A merge that started meanwhile removes the tree under the questions asked of it: say so, not a failure.
    const now = ctx.store.branches.get(task.id)
    if (!(err instanceof ApiError) && (now?.merging || now?.merged_commit)) throw beingMerged(tk)
    throw err
  }
}

const beingMerged = (tk: string) =>
  new ApiError('invalid_transition', `${tk} is being merged (or was just merged): there is no merge to preview`)

async function preview(h: Harness, ctx: Ctx, task: TaskRow, tree: string): Promise<MergePreview> {
  const tk = makeKey('task', task.id)
  const settings = workspaceSettings(ctx)
  const base = settings.baseBranch
  const repo = h.workspace(ctx.wsId).repoPath
  const head = base ? await baseHead(repo, base) : null
  if (!base || !head)
    throw new ApiError('invalid_transition', `the base branch ${base ?? ''} has no commit to merge into`)
  const commit = task.artifact_commit ?? (await treeHead(tree))
  if (!commit) throw new ApiError('invalid_transition', `${tk} has no commit to merge`)
  const scratch = join(h.registry.dataDir, 'scratch', ctx.wsId, 'base')
  const own = await checkAgainstBase(repo, tree, head, commit, scratch)
  const files = await changedSinceBase(repo, tree, head, commit)
  const blocked = blockedBy(own, tk, base)
  const others = await othersConcerned(ctx, task.id, { repo, head, base, files })
  // Verified (default): a merge that cannot land as checked (the base moved) is queued — updated, verified again, then landed. So is
  // one behind other queued merges. As accepted: it lands what was accepted, its merged tree not verified again.
  const verified = settings.merges === 'verified'
  const queueLength = ctx.store.mergeQueue.list().filter((q) => q.task_id !== task.id).length
  const queued = verified && blocked?.code !== 'merge_conflict' && (blocked !== null || queueLength > 0)
  const text = previewText({ tk, base, blocked, others, verified, queued, queueLength })
  return {
    taskId: makeId(ctx.wsId, 'task', task.id),
    key: tk,
    baseBranch: base,
    baseHead: head,
    commit,
    files,
    blocked,
    merges: settings.merges,
    queued,
    others,
    text,
  }
}

/** The same refusals as tasks.merge: a conflict, or a base that moved since the task's evidence. */
function blockedBy(
  own: Awaited<ReturnType<typeof checkAgainstBase>>,
  tk: string,
  base: string,
): MergePreview['blocked'] {
  return own?.conflicts
    ? {
        code: 'merge_conflict',
        message: `${tk} conflicts with ${base} in ${listed(own.conflicts)}: it cannot be merged until its branch is updated`,
      }
    : own && !own.landsAsChecked
      ? {
          code: 'base_moved',
          message: `${base} moved since ${tk}'s evidence was made (behind by ${own.behind}): merging now would land a tree no report checked`,
        }
      : null
}

/** The base's move a merge makes: where it is, and the files the merge brings to it. */
interface Move {
  repo: string
  head: string
  base: string
  files: string[]
}

/** What the move does to every other open task with a tree of its own, the most concerned first. */
async function othersConcerned(ctx: Ctx, taskRowId: number, move: Move): Promise<MergePreview['others']> {
  const others: MergePreview['others'] = []
  const open = ctx.store.branches
    .list()
    .filter((b) => b.task_id !== taskRowId && !b.merged_commit && !b.merging && b.worktree && b.state === 'ready')
  const rows = new Map(ctx.store.tasks.getMany(open.map((b) => b.task_id)).map((t) => [t.id, t]))
  for (const b of open) {
    const t = rows.get(b.task_id)
    if (!t || !baseCheckedStatuses.includes(t.status) || !isOwnTree(b.worktree!)) continue
    let theirs: Set<string>
    try {
      const theirCommit =
        t.status !== 'in_progress' && t.artifact_commit ? t.artifact_commit : await treeHead(b.worktree!)
      if (!theirCommit) continue
      theirs = new Set(await changedSinceBase(move.repo, b.worktree!, move.head, theirCommit))
    } catch (err) {
      // Merged meanwhile (its tree removed under the question): it is no longer an open task to name.
      const now = ctx.store.branches.get(t.id)
      if (now?.merging || now?.merged_commit) continue
      throw err
    }
    others.push(otherEffect(ctx, t, theirs, move))
  }
  const order = { overlaps: 0, reverify: 1, behind: 2 }
  others.sort((a, b) => order[a.effect] - order[b.effect] || a.key.localeCompare(b.key, 'en', { numeric: true }))
  return others
}

/** One open task's lot: it overlaps (a file in common), needs verifying again (delivered or accepted), or falls behind. */
function otherEffect(ctx: Ctx, t: TaskRow, theirs: Set<string>, { base, files }: Move): MergePreview['others'][number] {
  const overlaps = files.filter((f) => theirs.has(f))
  const key = makeKey('task', t.id)
  const verified = t.status !== 'in_progress'
  const effect: MergePreview['others'][number]['effect'] = overlaps.length
    ? 'overlaps'
    : verified && files.length
      ? 'reverify'
      : 'behind'
  const text =
    effect === 'overlaps'
      ? `${key} overlaps (${listed(overlaps)}) and ${verified ? 'will need updating and verifying again' : 'its assignee will be told'}`
      : effect === 'reverify'
        ? `${key} will need verifying again on the new ${base}`
        : `${key} falls behind ${base} (no file in common)`
  return { taskId: makeId(ctx.wsId, 'task', t.id), key, status: t.status, overlaps, effect, text }
}

/** The preview in a sentence or two: whether it queues, is refused or lands, and what it does to the others. */
function previewText(v: {
  tk: string
  base: string
  blocked: MergePreview['blocked']
  others: MergePreview['others']
  verified: boolean
  queued: boolean
  queueLength: number
}): string {
  const { tk, base, blocked, verified } = v
  const concerned = v.others.filter((o) => o.effect !== 'behind')
  const mode = verified
    ? 'Verified merge: main only receives a tree a passing test checked.'
    : 'As accepted: the merged tree is not re-verified.'
  const lead = v.queued
    ? `Merge queues ${tk}: ${blocked ? `${blocked.message}, so Concord updates its branch, has it verified again and merges it when the evidence passes` : `it merges after the ${v.queueLength} queued before it`}.`
    : blocked && (blocked.code === 'merge_conflict' || verified)
      ? `${tk} cannot be merged now: ${blocked.message}.`
      : concerned.length
        ? `Merging ${tk} moves ${base}: ${concerned.map((o) => o.text).join('; ')}.`
        : `Merging ${tk} moves ${base}; no other open task is concerned.`
  return `${lead} ${mode}`
}
