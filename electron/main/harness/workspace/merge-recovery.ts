/**
 * A merge cut short (Concord or git killed while tasks.merge ran, task-merge.ts): what it left in the user's checkout,
 * and the merges recorded as running that the next start (task-branches.ts) and the next merge find.
 */
import { existsSync, lstatSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../../shared/errors'
import { resolveCommit } from '../../repo/git-repo'
import { runOwnGit } from '../../platform/own-git'
import type { Ctx } from '../context'
import { makeKey, now } from '../ids'

/**
 * An absolute path in the checkout's git folder (a name git writes there: index.lock, MERGE_HEAD). Where git keeps it
 * depends only on the repository's layout, so an answer is kept while `.git` is the same folder (device, inode), or
 * the same `.git` file of a worktree, unchanged (its size and times too).
 */
export async function gitPath(repo: string, name: string): Promise<string | null> {
  const id = layoutId(repo)
  const k = `${repo}\0${name}`
  const known = id ? gitPaths.get(k) : undefined
  if (known && known.id === id) return known.path
  const r = await runOwnGit(repo, ['rev-parse', '--path-format=absolute', '--git-path', name], { allowFailure: true })
  const found = r.code === 0 ? r.stdout.trim() || null : null
  if (found && id && layoutId(repo) === id) {
    if (gitPaths.size >= GIT_PATHS_MAX) gitPaths.clear()
    gitPaths.set(k, { id, path: found })
  }
  return found
}

const gitPaths = new Map<string, { id: string; path: string }>()
const GIT_PATHS_MAX = 200

function layoutId(repo: string): string | null {
  try {
    const s = lstatSync(path.join(repo, '.git'), { bigint: true })
    // A folder's times change with every file git writes in it; what it points at does not.
    return s.isDirectory() ? `${s.dev}:${s.ino}:dir` : `${s.dev}:${s.ino}:${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return null
  }
}

/** A merge is under way in the checkout: git merge refuses while MERGE_HEAD exists ("You have not concluded your merge"). */
export async function mergeInProgress(repo: string): Promise<boolean> {
  const file = await gitPath(repo, 'MERGE_HEAD')
  return !!file && existsSync(file)
}

/** What differs in the checkout from how it was before a merge (HEAD, tracked files, a lock, MERGE_HEAD); empty when nothing. */
export async function leftovers(repo: string, before: string): Promise<string[]> {
  const found: string[] = []
  const lock = await gitPath(repo, 'index.lock')
  if (lock && existsSync(lock)) found.push(`${lock} is left (git was killed mid-write)`)
  const head = await resolveCommit(repo, 'HEAD')
  if (head !== before) found.push(`HEAD moved from ${before.slice(0, 10)} to ${head?.slice(0, 10) ?? 'nothing'}`)
  if (await mergeInProgress(repo)) found.push('a merge is in progress (MERGE_HEAD)')
  if (!lock || !existsSync(lock)) {
    const status = await runOwnGit(
      repo,
      ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=dirty'],
      { allowFailure: true },
    )
    const dirty = status.stdout
      .split('\0')
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3))
    if (dirty.length)
      found.push(
        `files changed: ${dirty.slice(0, 20).join(', ')}${dirty.length > 20 ? ` and ${dirty.length - 20} more` : ''}`,
      )
  }
  return found
}

/**
 * The commit in which a recorded merge of `rec.commit` onto `rec.head` landed, or null when it did not. A merge or a
 * fast-forward has the task's commit as an ancestor (HEAD itself is recorded, as before); a squash never does, so it
 * is the commit that follows `rec.head` on HEAD's first-parent line, with the task's commit's own tree (tasks.merge
 * lands only that tree: checkLandsAsChecked).
 */
async function landedCommit(repo: string, rec: { head: string; commit: string }, head: string) {
  if ((await runOwnGit(repo, ['merge-base', '--is-ancestor', rec.commit, head], { allowFailure: true })).code === 0)
    return head
  const after = await runOwnGit(repo, ['rev-list', '--first-parent', '--reverse', `${rec.head}..${head}`], {
    allowFailure: true,
  })
  const next = after.code === 0 ? after.stdout.split('\n')[0]?.trim() : ''
  if (!next || (await resolveCommit(repo, `${next}^1`)) !== rec.head) return null
  const trees = await runOwnGit(repo, ['rev-parse', `${next}^{tree}`, `${rec.commit}^{tree}`], {
    allowFailure: true,
  })
  const [made, task] = trees.stdout.trim().split('\n')
  return trees.code === 0 && made && made === task ? next : null
}

/**
 * A merge Concord recorded as running and never finished (it was killed, perhaps with git): `refuse` (before a new
 * merge) throws merge_blocked saying what is left in the checkout; a checkout found as it was is cleared silently,
 * and one where the merge landed is recorded as merged. Returns the notes for the workspace at start.
 */
export async function interruptedMerges(ctx: Ctx, repo: string, refuse: boolean): Promise<string[]> {
  const notes: string[] = []
  for (const row of ctx.store.branches.list()) {
    if (!row.merging) continue
    const tk = makeKey('task', row.task_id)
    const rec = JSON.parse(row.merging) as { head: string; commit: string; at: string }
    const head = await resolveCommit(repo, 'HEAD')
    // A moved HEAD alone is no leftover (the merge landed, or you have committed since); a lock, MERGE_HEAD or
    // changed files are.
    const all = await leftovers(repo, rec.head)
    const found = all.filter((f) => !f.startsWith('HEAD moved'))
    const landed = !found.length && head !== null && head !== rec.head ? await landedCommit(repo, rec, head) : null
    if (!found.length) {
      ctx.store.transaction(() => {
        ctx.store.branches.setMerging(row.task_id, null)
        if (landed) {
          ctx.store.branches.setMerged(row.task_id, landed, now(), rec.head)
          ctx.store.log.appendEvent(
            'task.merged',
            { taskId: row.task_id, commit: rec.commit, merged: landed, recovered: true },
            now(),
          )
        }
      })
      if (landed)
        notes.push(
          `The merge of ${tk} that was running when Concord stopped had landed (${landed.slice(0, 10)}); it is recorded as merged.`,
        )
      continue
    }
    const text = `The merge of ${tk} started at ${rec.at} did not finish (Concord was stopped while git ran): ${all.join('; ')}. Check your checkout (git status), put it back (git merge --abort, or remove the lock if no git runs), then merge again`
    if (refuse)
      throw new ApiError('merge_blocked', text, {
        reason: 'interrupted',
        taskId: makeKey('task', row.task_id),
        found: all,
      })
    notes.push(`${text}.`)
  }
  return notes
}
