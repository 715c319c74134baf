/**
 * Concord's own git calls on the user's repository and its long-lived git processes (git-batch.ts): outside the command
 * sandbox, with every program override and the config reads kept while the config files are unchanged.
 */
import { commandEnv } from './command-env'
import { configEntries, NO_PROGRAMS, repositoryFilters, repositoryMergeDrivers } from './git-overrides'
import { type GitResult, type RunGitOptions, spawnGit } from './git-spawn'
import { OWN_CONFIG_READ, ownConfig, ownConfigKey } from './own-config-cache'
import { treeExplicit } from './tree-git'

/**
 * The arguments (after `git`) of Concord's own long-lived git in a repository or tree (git-batch.ts): every program
 * override of runOwnGit; `gitDir` names a tree's git folder explicitly, as runTreeGit does.
 */
export function ownBatchArgs(args: string[], tree?: string): string[] {
  const explicit = tree ? treeExplicit(tree) : []
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null'].flatMap((kv) => ['-c', kv])
  return [...explicit, ...config, '--no-optional-locks', ...args]
}

/**
 * Concord's own git calls on the user's repository (making task trees, fetching their branches, merges, the diffs the UI
 * shows). Not in the command sandbox — they write the repository's git folder and worktrees in the data folder — but
 * no program named by the repository's config runs: the overrides of the calls that need no approval, hooks off, and
 * the repository's filter and merge drivers set back to the user's own (git-lfs keeps working) or to nothing.
 */
export async function runOwnGit(
  root: string,
  args: string[],
  opts: Pick<RunGitOptions, 'allowFailure' | 'maxBuffer' | 'signal'> & {
    env?: Record<string, string>
    /** git's stdin: this file from byte `start` on, streamed off the loop (a bundle's pack). */
    inputFile?: { path: string; start: number }
  } = {},
): Promise<GitResult> {
  const env = { ...commandEnv(undefined), ...opts.env }
  // The filter and merge-driver settings in one read (git is spawned once less per call; a turn's snapshot makes 3 calls).
  // Kept while the config files are unchanged (own-config-cache.ts): a merge makes ~15 calls on one repository.
  const key = await ownConfigKey(root, env)
  const stdout = await ownConfig(
    root,
    key,
    () => spawnGit('git', OWN_CONFIG_READ, root, env, { signal: opts.signal, allowFailure: true }),
    !opts.signal,
  )
  const entries = configEntries(stdout)
  const filters = await repositoryFilters(root, env, opts.signal, entries)
  const count = Number(filters.env.GIT_CONFIG_COUNT ?? 0)
  const merges = repositoryMergeDrivers(entries, count)
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null', 'commit.gpgSign=false', 'tag.gpgSign=false'].flatMap(
    (kv) => ['-c', kv],
  )
  return spawnGit('git', [...config, ...args], root, { ...env, ...filters.env, ...merges }, opts, args[0])
}
