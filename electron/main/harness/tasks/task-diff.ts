/** tasks.diff: what a task changed, from git, with per-file counts and a capped unified patch. */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { DiffFile, TaskDiff, TurnCommits } from '../../../../shared/schemas'
import { snapshotObjects, statusWord, uncommittedFiles, withSnapshots } from '../../repo/file-changes'
import { resolveCommit } from '../../repo/git-repo'
import { runOwnGit } from '../../platform/own-git'
import { turnChanges } from '../members/steps'
import { rowOf, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey } from '../ids'
import { refreshHead } from '../workspace/task-branches'
import { workspaceSettings } from '../workspace/workspace-settings'

/** The patch is cut here; the file list and counts are always whole. */
export const PATCH_CAP = 1024 * 1024

export async function taskDiff(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.diff'>): Promise<TaskDiff> {
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  const repo = h.workspace(ctx.wsId).repoPath
  const branch = await refreshHead(h, ctx, task.id)
  const head = (task.status === 'accepted' && task.artifact_commit) || branch?.head || task.artifact_commit
  if (!head)
    throw new ApiError(
      'invalid_transition',
      `${tk} has no branch or delivered commit yet: start it in a worktree workspace, or deliver a commit`,
    )
  let base: string | null
  let merged: TaskDiff['merged']
  if (p.against) {
    base = await resolveCommit(repo, p.against)
    if (!base) throw new ApiError('invalid_params', `against: '${p.against}' is not a commit in this repository`)
  } else if (branch?.merged_commit) {
    // Merged: the base branch holds the head now, so compare with where the branch met it at the merge.
    const onto = branch.merged_base ?? (await firstParentOf(repo, branch.merged_commit, head))
    const mb = onto ? (await runOwnGit(repo, ['merge-base', onto, head], { allowFailure: true })).stdout.trim() : ''
    base = /^[0-9a-f]{40}/.test(mb) ? mb : branch.base_commit
    merged = { commit: branch.merged_commit, onto, branch: workspaceSettings(ctx).baseBranch }
  } else {
    // The branch's own changes: from where it meets the base branch now (the base may have moved on since).
    const baseBranch = workspaceSettings(ctx).baseBranch
    const tip = baseBranch ? await resolveCommit(repo, `refs/heads/${baseBranch}`) : null
    const mb = tip ? (await runOwnGit(repo, ['merge-base', tip, head], { allowFailure: true })).stdout.trim() : ''
    base = /^[0-9a-f]{40}/.test(mb) ? mb : (branch?.base_commit ?? null)
    if (!base) throw new ApiError('invalid_transition', `${tk} has no base to compare with: pass against`)
  }
  const files = await diffFiles(repo, base, head)
  const { patch, truncated } = await diffPatch(repo, base, head)
  const uncommitted = branch?.worktree && existsSync(branch.worktree) ? await uncommittedFiles(branch.worktree) : []
  return { base, head, files, patch, truncated, uncommitted, ...(merged ? { merged } : {}) }
}

/**
 * For a merge recorded before its base was kept: a merge or squash commit's first parent is the base branch's head it
 * was made on; a fast-forward (the merged commit is the head itself) leaves no trace of it (null).
 */
async function firstParentOf(repo: string, mergedCommit: string, head: string): Promise<string | null> {
  if (mergedCommit === head) return null
  const r = await runOwnGit(repo, ['rev-parse', '--verify', '--quiet', `${mergedCommit}^1`], { allowFailure: true })
  return /^[0-9a-f]{40}$/.test(r.stdout.trim()) ? r.stdout.trim() : null
}

/** sessions.changes: the diff of what one turn changed, between the trees recorded before and after it. */
export async function turnDiff(h: Harness, ctx: Ctx, stepId: string): Promise<TaskDiff> {
  const row = ctx.store.steps.get(rowOf(ctx, 'step', stepId, 'stepId'))
  const changes = row ? turnChanges(row) : null
  if (!changes) throw new ApiError('not_found', `stepId: step ${stepId} records no changes`)
  const repo = h.workspace(ctx.wsId).repoPath
  // The snapshot trees are in Concord's own store (snapshotTree), older ones in the repository; the task's tree, while
  // it is there, has the blobs of commits not brought over yet.
  const tree = row?.task_id != null ? ctx.store.branches.get(row.task_id)?.worktree : null
  const env = withSnapshots(
    snapshotObjects(join(h.registry.dataDir, 'scratch', ctx.wsId, 'snapshots')),
    tree ? join(tree, '.git', 'objects') : null,
  )
  const present = await runOwnGit(repo, ['cat-file', '-e', `${changes.to}^{tree}`], { env, allowFailure: true })
  if (present.code !== 0)
    throw new ApiError(
      'not_found',
      `the trees of this turn are no longer kept (git gc removed them); its file list is all that is left`,
    )
  const files = await diffFiles(repo, changes.from, changes.to, env)
  const { patch, truncated } = await diffPatch(repo, changes.from, changes.to, env)
  const turn = await turnCommits(repo, changes, env)
  return { base: changes.from, head: changes.to, files, patch, truncated, uncommitted: [], turn }
}

/** The commits a turn's trees were at, whether the trees held more than those commits, and the commits between. */
async function turnCommits(
  repo: string,
  changes: { from: string; to: string; fromCommit?: string | null; toCommit?: string | null },
  env: Record<string, string>,
): Promise<TurnCommits> {
  const fromCommit = changes.fromCommit ?? null
  const toCommit = changes.toCommit ?? null
  const treeOf = async (commit: string | null) =>
    commit
      ? (
          await runOwnGit(repo, ['rev-parse', '--verify', '--quiet', `${commit}^{tree}`], { env, allowFailure: true })
        ).stdout.trim() || null
      : null
  const [fromTree, toTree] = await Promise.all([treeOf(fromCommit), treeOf(toCommit)])
  let commits: TurnCommits['commits'] = []
  if (toCommit && toTree && toCommit !== fromCommit) {
    const range = fromCommit && fromTree ? [`${fromCommit}..${toCommit}`] : [toCommit]
    const log = await runOwnGit(
      repo,
      ['log', '--reverse', '-z', '--max-count=50', '--format=%H%x1f%s', ...range, '--'],
      {
        env,
        allowFailure: true,
      },
    )
    commits = log.stdout
      .split('\0')
      .filter(Boolean)
      .map((l) => {
        const [sha = '', subject = ''] = l.replace(/^\n/, '').split('\x1f')
        return { sha, subject }
      })
  }
  return {
    fromCommit,
    toCommit,
    // Without a commit every file of the tree is not committed; without the record nothing is known (false).
    uncommittedBefore: fromCommit ? fromTree !== changes.from : changes.fromCommit === null,
    uncommittedAfter: toCommit ? toTree !== changes.to : changes.toCommit === null,
    commits,
  }
}

export async function diffFiles(
  repo: string,
  base: string,
  head: string,
  env?: Record<string, string>,
): Promise<DiffFile[]> {
  const names = (
    await runOwnGit(repo, ['diff', '--no-ext-diff', '--no-textconv', '-z', '-M', '--name-status', base, head], { env })
  ).stdout.split('\0')
  const nums = (
    await runOwnGit(repo, ['diff', '--no-ext-diff', '--no-textconv', '-z', '-M', '--numstat', base, head], { env })
  ).stdout.split('\0')
  const counts = new Map<string, { additions: number | null; deletions: number | null }>()
  // numstat -z: "add\tdel\tpath" or, for a rename, "add\tdel\t" then old and new paths as separate fields.
  for (let i = 0; i < nums.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(nums[i] ?? '')
    if (!m) continue
    const [, add, del, named] = m
    const path = named === '' ? nums[(i += 2)] : named
    if (path !== undefined)
      counts.set(path, { additions: add === '-' ? null : Number(add), deletions: del === '-' ? null : Number(del) })
  }
  const out: DiffFile[] = []
  for (let i = 0; i < names.length;) {
    const code = names[i++]
    if (!code) continue
    const status = statusWord[code.charAt(0)] ?? 'modified'
    const oldPath = status === 'renamed' || status === 'copied' ? (names[i++] ?? null) : null
    const path = names[i++]
    if (path === undefined) break
    out.push({ path, oldPath, status, ...(counts.get(path) ?? { additions: null, deletions: null }) })
  }
  return out
}

async function diffPatch(
  repo: string,
  base: string,
  head: string,
  env?: Record<string, string>,
): Promise<{ patch: string; truncated: boolean }> {
  const r = await runOwnGit(repo, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', base, head], {
    env,
    maxBuffer: 256 * 1024 * 1024,
  })
  if (r.stdout.length <= PATCH_CAP) return { patch: r.stdout, truncated: false }
  // Cut at a file boundary when one is near, so the viewer never gets half a hunk header.
  const cut = r.stdout.lastIndexOf('\ndiff --git ', PATCH_CAP)
  const at = cut > PATCH_CAP / 2 ? cut + 1 : PATCH_CAP
  return {
    patch: `${r.stdout.slice(0, at)}\n[… diff truncated: ${r.stdout.length - at} more characters; the file list above is complete]\n`,
    truncated: true,
  }
}
