/**
 * Bringing the base branch's head into a task's tree (issue 30, "Updating a task's branch"): a merge, or a rebase
 * when the workspace says so, made in the tree itself — every call through runTreeGit, so in the OS sandbox with only
 * the tree writable, no hook and no program of any config run — as the user (the identity given). The base's commits
 * are read through the tree's alternates (the user's object store, read-only).
 *
 * A conflict is left in the tree as git leaves a merge (conflict markers, MERGE_HEAD) only when the caller hands it
 * to someone (leaveConflict); otherwise the merge is aborted and the tree is as it was. A rebase that stops on a
 * conflict is always aborted, and the conflict is handed over as a merge: one state to resolve, whatever the setting.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runTreeGit, treeConfig } from '../platform/tree-git'
import { treeHead } from './git-repo'

export interface ConflictSides {
  file: string
  /** The base's commits since the parting that changed the file ("abc1234 subject"). */
  base: string[]
  /** The task's own commits that changed it. */
  task: string[]
}

export interface TreeUpdate {
  outcome: 'updated' | 'current' | 'conflict'
  from: string
  head: string
  conflicts: ConflictSides[]
}

export interface TreeUpdateOptions {
  mode: 'merge' | 'rebase'
  /** The merge commit's message. */
  message: string
  /** Who the new commits are by (GIT_AUTHOR_*, GIT_COMMITTER_*). */
  env: Record<string, string>
  /** The user's object store, shown read-only in the sandbox (the tree reads the base's commits there). */
  readable: string[]
  /** Leave a conflicting merge in the tree (for its assignee); false: abort it, nothing changed. */
  leaveConflict: boolean
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/** The tree is in the middle of a merge, a rebase, a cherry-pick or a revert: what git would refuse to start over. */
export function treeMidOperation(tree: string): string | null {
  const git = path.join(tree, '.git')
  if (existsSync(path.join(git, 'MERGE_HEAD'))) return 'a merge'
  if (existsSync(path.join(git, 'rebase-merge')) || existsSync(path.join(git, 'rebase-apply'))) return 'a rebase'
  if (existsSync(path.join(git, 'CHERRY_PICK_HEAD'))) return 'a cherry-pick'
  if (existsSync(path.join(git, 'REVERT_HEAD'))) return 'a revert'
  return null
}

export async function updateTree(tree: string, base: string, o: TreeUpdateOptions): Promise<TreeUpdate> {
  if (!SHA.test(base)) throw new ApiError('update_blocked', `the base branch's head ${base} is not a commit`)
  const config = await treeConfig(tree)
  const read = (args: string[]) => runTreeGit(tree, args, { allowFailure: true, readable: o.readable, config })
  const write = (args: string[]) =>
    runTreeGit(tree, args, { write: true, allowFailure: true, readable: o.readable, env: o.env, config })
  const from = await treeHead(tree)
  if (!from) throw new ApiError('update_blocked', 'the task’s tree has no commit to update')
  const status = await read(['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=dirty'])
  const dirty = status.stdout
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
  if (dirty.length)
    throw new ApiError(
      'uncommitted_changes',
      `the task's tree has changes that are not committed (${dirty.slice(0, 20).join(', ')}); commit or discard them, then update`,
      { files: dirty },
    )
  if ((await read(['merge-base', '--is-ancestor', base, from])).code === 0)
    return { outcome: 'current', from, head: from, conflicts: [] }

  if (o.mode === 'rebase') {
    const r = await write(['rebase', '--quiet', '--no-autostash', base])
    if (r.code === 0) return { outcome: 'updated', from, head: (await treeHead(tree)) ?? from, conflicts: [] }
    // Stopped on a conflict (or refused): put back, and hand any conflict over as a merge below.
    await write(['rebase', '--abort'])
  }
  const merged = await write(['merge', '--no-edit', '--no-verify', '-m', o.message, base])
  if (merged.code === 0) return { outcome: 'updated', from, head: (await treeHead(tree)) ?? from, conflicts: [] }
  const unmerged = (await read(['diff', '--name-only', '-z', '--diff-filter=U']))?.stdout.split('\0').filter(Boolean)
  if (!unmerged.length) {
    await write(['merge', '--abort'])
    const why = (merged.stderr || merged.stdout).trim() || `exit code ${merged.code}`
    throw new ApiError(
      'update_blocked',
      `git could not bring the base into the task's tree: ${why}; nothing was changed`,
    )
  }
  const conflicts = await sides(read, from, base, [...new Set(unmerged)].sort())
  if (!o.leaveConflict) await write(['merge', '--abort'])
  return { outcome: 'conflict', from, head: from, conflicts }
}

/** For each conflicting file, the commits on each side since the two parted that changed it. */
async function sides(
  read: (args: string[]) => Promise<{ stdout: string; code: number }>,
  head: string,
  base: string,
  files: string[],
): Promise<ConflictSides[]> {
  const mb = (await read(['merge-base', head, base])).stdout.trim()
  const log = async (range: string, file: string) =>
    SHA.test(mb)
      ? (await read(['log', '--no-merges', '--format=%h %s', range, '--', file])).stdout
          .split('\n')
          .filter(Boolean)
          .slice(0, 10)
      : []
  const out: ConflictSides[] = []
  for (const file of files.slice(0, 50))
    out.push({ file, base: await log(`${mb}..${base}`, file), task: await log(`${mb}..${head}`, file) })
  return out
}

/**
 * The files of a commit that still hold git's conflict markers (a line starting with seven `<` or `>` and a space, or
 * alone): read from the commit's objects in `repo` (no work tree, no program of its config). Empty when none.
 */
export async function filesWithConflictMarkers(
  run: (args: string[]) => Promise<{ stdout: string; code: number }>,
  commit: string,
): Promise<string[]> {
  if (!SHA.test(commit)) return []
  const r = await run(['grep', '-I', '-l', '-E', '-e', '^<{7}( |$)', '-e', '^>{7}( |$)', commit, '--'])
  if (r.code !== 0) return []
  const prefix = `${commit}:`
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : l))
}
