/**
 * What tasks.merge checks before it touches your checkout (task-merge.ts): the checkout itself (on the base branch, no
 * lock, no merge under way, nothing uncommitted), the trial merge (conflicts, and with verified merges the tree that
 * would land), and the files git does not track that the merge would overwrite. All read-only.
 */
import { existsSync, lstatSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../../shared/errors'
import { type GitResult } from '../../platform/git-spawn'
import { runOwnGit } from '../../platform/own-git'
import { gitPath, mergeInProgress } from '../workspace/merge-recovery'

export interface CheckoutState {
  current: string
  lock: string | null
  merging: boolean
  status: string | Error
}

/** What checkCheckout needs of your checkout, read in parallel (all read-only). */
export async function readCheckout(repo: string): Promise<CheckoutState> {
  const [head, lock, mergeHead, status] = await Promise.all([
    runOwnGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFailure: true }),
    gitPath(repo, 'index.lock'),
    mergeInProgress(repo),
    runOwnGit(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=dirty']).then(
      (r) => r.stdout,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    ),
  ])
  return {
    current: head.stdout.trim(),
    lock: lock && existsSync(lock) ? lock : null,
    merging: mergeHead,
    status,
  }
}

/** Your checkout must be on the base branch with nothing uncommitted in tracked files. */
export function checkCheckout(state: CheckoutState, baseBranch: string): void {
  const { current, lock } = state
  if (current !== baseBranch) {
    throw new ApiError(
      'merge_blocked',
      `your checkout is on ${current || 'a detached HEAD'}, not on the base branch ${baseBranch}: switch to ${baseBranch} and merge again`,
      {
        reason: 'wrong_branch',
      },
    )
  }
  if (lock) {
    throw new ApiError(
      'merge_blocked',
      `your checkout's index is locked (${lock} exists): a git command is running there, or one was killed before it finished. If no git is running, check your checkout (git status), remove ${lock}, and merge again`,
      { reason: 'index_locked', files: [lock] },
    )
  }
  if (state.merging) {
    throw new ApiError('merge_blocked', 'your checkout is in the middle of a merge: finish or abort it first', {
      reason: 'merge_in_progress',
    })
  }
  // git status failing is said where it was asked before: after the checks above.
  if (state.status instanceof Error) throw state.status
  const dirty = state.status
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
  if (dirty.length) {
    throw new ApiError(
      'merge_blocked',
      `your checkout has uncommitted changes: ${dirty.slice(0, 20).join(', ')}${dirty.length > 20 ? ` and ${dirty.length - 20} more` : ''}; commit or stash them and merge again`,
      {
        reason: 'dirty',
        files: dirty,
      },
    )
  }
}

/** The trial merge's answers, asked before the checkout is checked (all read-only; used only if it passes). */
export type Trial = { strategy: 'ff-only'; ancestor: number | null } | { strategy: 'merge' | 'squash'; tree: GitResult }

export async function trialMerge(repo: string, commit: string, strategy: string): Promise<Trial> {
  if (strategy === 'ff-only') {
    const ff = await runOwnGit(repo, ['merge-base', '--is-ancestor', 'HEAD', commit], { allowFailure: true })
    return { strategy, ancestor: ff.code }
  }
  const tree = await runOwnGit(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', commit], {
    allowFailure: true,
  })
  return { strategy: strategy === 'squash' ? 'squash' : 'merge', tree }
}

/** `git diff-tree` of HEAD against the commit's tree: what landing exactly that tree changes (checkUntracked reads it). */
export function addedOver(repo: string, commit: string): Promise<GitResult> {
  return runOwnGit(repo, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', 'HEAD', commit], {
    allowFailure: true,
  })
}

/**
 * Conflicts are found without touching the checkout (git merge-tree), so a refused merge leaves nothing behind.
 * `verified`: the tree that would land must be the checked one (checkLandsAsChecked); as-accepted lands it anyway.
 */
export async function checkMergeable(
  repo: string,
  commit: string,
  trial: Trial,
  tk: string,
  verified: boolean,
  /** The accepted commit's tree: what its reports checked. */
  checked: string,
  /** HEAD against that tree (addedOver): the files a merge adds when it lands exactly that tree. */
  adds: GitResult,
): Promise<void> {
  if (trial.strategy === 'ff-only') {
    if (trial.ancestor !== 0)
      throw new ApiError(
        'merge_blocked',
        `${tk} cannot be fast-forwarded: the base branch has moved on; use strategy "merge" or "squash"`,
        { reason: 'not_fast_forward' },
      )
    return checkUntracked(repo, adds, tk)
  }
  const { tree: r } = trial
  if (r.code === 0) {
    const landed = r.stdout.split('\n')[0]?.trim() ?? ''
    if (verified) await checkLandsAsChecked(repo, landed, checked, commit, tk)
    // A merge that lands another tree than the commit's (as-accepted, the base moved) adds what that tree adds.
    if (!landed) return
    return checkUntracked(repo, landed === checked ? adds : await addedOver(repo, landed), tk)
  }
  const lines = r.stdout.split('\n').filter((l) => l.length > 0)
  if (r.code === 1 && lines.length > 1) {
    const paths = [...new Set(lines.slice(1))]
    throw new ApiError(
      'merge_conflict',
      `${tk} conflicts with the base branch in ${paths.join(', ')}; nothing was changed. Resolve on the task's branch (ask its assignee) and merge again`,
      { paths },
    )
  }
  throw new ApiError(
    'merge_blocked',
    `git could not check the merge of ${tk}: ${r.stderr.trim() || `exit code ${r.code}`}`,
    { reason: 'git' },
  )
}

/**
 * Verified merges (issue 30): the base branch only receives the tree the task's reports checked — the accepted
 * commit's own tree. A fast-forward lands it as it is; a --no-ff merge (or a squash) lands the merge of the base and
 * the commit, which is that same tree only when the commit already has the base in it (its branch was updated from
 * the base, and verified there). Otherwise the merge would land a tree no report checked: base_moved, nothing
 * changed (tasks.merge then queues it: merge-queue.ts).
 */
async function checkLandsAsChecked(
  repo: string,
  landed: string,
  checked: string,
  commit: string,
  tk: string,
): Promise<void> {
  if (!landed || landed === checked) return
  const behind = (
    await runOwnGit(repo, ['rev-list', '--count', `${commit}..HEAD`], { allowFailure: true })
  ).stdout.trim()
  throw new ApiError(
    'base_moved',
    `the base branch moved since ${tk}'s evidence was made (${tk} is behind by ${behind || 'some commits'}): merging would land a tree no report checked; nothing was changed. Bring the base branch into ${tk}'s branch, verify it there and deliver it again`,
    { reason: 'base_moved', behind: Number(behind) || null },
  )
}

/**
 * Files the merge would write where your checkout has a file git does not track (untracked or ignored: a build
 * output, your `.env`): git merge replaces ignored files silently, so they are found first, from the merged tree.
 */
async function checkUntracked(repo: string, r: GitResult, tk: string): Promise<void> {
  if (r.code !== 0) return
  const parts = r.stdout.split('\0')
  const blocked: string[] = []
  for (let i = 0; i + 1 < parts.length; i += 2) {
    if (parts[i] !== 'A') continue
    const file = parts[i + 1] ?? ''
    // The file itself, or a folder of its path that is a file or link in your checkout and not in the base.
    const segments = file.split('/')
    for (let n = segments.length; n >= 1; n--) {
      const rel = segments.slice(0, n).join('/')
      let st
      try {
        st = lstatSync(path.join(repo, rel))
      } catch {
        continue
      }
      if (n === segments.length || !st.isDirectory()) {
        if ((await runOwnGit(repo, ['ls-files', '--error-unmatch', '--', rel], { allowFailure: true })).code !== 0)
          blocked.push(rel)
      }
      break
    }
  }
  if (blocked.length) {
    const shown = [...new Set(blocked)]
    throw new ApiError(
      'merge_blocked',
      `${tk} adds ${shown.slice(0, 20).join(', ')}${shown.length > 20 ? ` and ${shown.length - 20} more` : ''}, which your checkout has as files git does not track (untracked or ignored); merging would overwrite them. Move them away (or commit them) and merge again; nothing was changed`,
      { reason: 'untracked_overwritten', paths: shown },
    )
  }
}
