/**
 * Concord's own git calls on a task's tree (or a read-only checkout), which an agent works in and may have written
 * anything in: the git folder named explicitly, every program override, writes in the OS sandbox, and the tree's git
 * folder checked before every write.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { commandEnv } from './command-env'
import { configEntries, NO_PROGRAMS, repositoryFilters, repositoryMergeDrivers } from './git-overrides'
import { type GitResult, type RunGitOptions, spawnGit } from './git-spawn'
import { sandboxedSpawn } from './sandbox/spawn'
import { sandboxStatus } from './sandbox/status'
import { ToolError } from './tool-error'

/**
 * A task's tree (or a read-only checkout) is a repository of its own, so a git write there can reach nothing else —
 * unless the files in it say otherwise: a `.git` file or symlink (`gitdir: <your repository>`), a `commondir`, or a
 * symlinked ref folder would make the write land in the user's repository. Checked before every write Concord does
 * on a tree; `deep` (no OS sandbox to hold writes to the tree) also refuses any symlink among the git folder's own
 * files. ToolError 'tree_not_own_repository'.
 */
export function assertOwnRepository(tree: string, deep: boolean): void {
  const gitDir = path.join(tree, '.git')
  const refuse = (why: string): never => {
    throw new ToolError(
      'tree_not_own_repository',
      `Concord will not write with git in ${tree}: ${why}. A task's tree must stay a repository of its own; remove the task's tree (cancel and restart the task) to have it made again.`,
    )
  }
  let st
  try {
    st = lstatSync(gitDir)
  } catch {
    return refuse('it has no .git folder')
  }
  if (st.isSymbolicLink() || !st.isDirectory())
    refuse('its .git is not a folder (a .git file or link points git at another repository)')
  for (const name of ['commondir', 'gitdir'])
    if (existsSync(path.join(gitDir, name)))
      refuse(`its .git folder has a ${name} file, which points git at another repository`)
  if (!deep) return
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const p = path.join(dir, e.name)
      if (e.isSymbolicLink()) refuse(`${path.relative(tree, p)} is a symbolic link`)
      if (e.isDirectory() && depth > 0) walk(p, depth - 1)
    }
  }
  walk(gitDir, 0)
  for (const sub of ['refs', 'logs']) walk(path.join(gitDir, sub), 64)
  walk(path.join(gitDir, 'objects'), 1)
}

export interface TreeGitOptions extends Pick<RunGitOptions, 'allowFailure' | 'maxBuffer' | 'signal'> {
  /** The call writes the tree (checkout, commit): only the tree is writable; the git folder is checked first. */
  write?: boolean
  /** Folders outside the tree the call writes (a temporary index, a snapshot object store); the tree stays read-only. */
  writable?: string[]
  env?: Record<string, string>
  /** Run in the OS sandbox (when there is one) even when nothing is written: the call reads what an agent wrote. */
  sandboxed?: boolean
  /** Keep stdout as bytes (a bundle). */
  raw?: boolean
  /** Shown read-only in the sandbox: the user's object store the tree reads through alternates. */
  readable?: string[]
  /** The tree's filter and merge-driver config as treeConfig read it: several calls in a row read it once. */
  config?: TreeConfig
}

/** A tree's filter and merge-driver settings, read once for several calls (a turn's snapshot). */
export interface TreeConfig {
  entries: [string, string][]
}

/** The git folder and work tree named explicitly when the tree has its own .git (see runTreeGit). */
export function treeExplicit(tree: string): string[] {
  const gitDir = path.join(tree, '.git')
  return existsSync(gitDir) ? ['--git-dir', gitDir, '--work-tree', tree] : []
}

/** Reads the config runTreeGit needs before a call; pass it as `config` to calls made right after one another. */
export async function treeConfig(tree: string, signal?: AbortSignal): Promise<TreeConfig> {
  const programs = await spawnGit('git', treeConfigCall(tree).args, tree, commandEnv(undefined), {
    signal,
    allowFailure: true,
  })
  return treeConfigOf(programs.stdout)
}

/** One git call on a tree as runTreeGit makes it: the arguments after `git`, and the variables on top of commandEnv's. */
export interface TreeGitCall {
  args: string[]
  env: Record<string, string>
}

/**
 * The arguments and variables of runTreeGit's call (tree-git-batch.ts runs many of them in one process): the git
 * folder and work tree named explicitly, every program override, the repository's filter and merge drivers set back to
 * the user's own or to nothing.
 */
export async function treeGitCall(
  tree: string,
  args: string[],
  opts: Pick<TreeGitOptions, 'config' | 'env' | 'signal' | 'write'> = {},
): Promise<TreeGitCall> {
  // Named explicitly when the tree has its own .git (task trees, checkouts, a checkout opened at its top); a shared
  // workspace opened at a folder inside a repository is found as git finds it (reads only: writes are checked first).
  const explicit = treeExplicit(tree)
  const { entries } = opts.config ?? (await treeConfig(tree, opts.signal))
  const filters = await repositoryFilters(tree, { ...commandEnv(undefined), ...opts.env }, opts.signal, entries)
  const merges = repositoryMergeDrivers(entries, Number(filters.env.GIT_CONFIG_COUNT ?? 0))
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null', 'commit.gpgSign=false', 'tag.gpgSign=false'].flatMap(
    (kv) => ['-c', kv],
  )
  return {
    args: [...explicit, ...config, ...(opts.write ? [] : ['--no-optional-locks']), ...args],
    env: { ...opts.env, ...filters.env, ...merges },
  }
}

const CONFIG_READ = ['config', '-z', '--show-scope', '--get-regexp', '^(filter|merge)\\.']

/** The call treeConfig makes (its output is read by treeConfigOf): no override, it only reads config. */
export function treeConfigCall(tree: string): TreeGitCall {
  return { args: [...treeExplicit(tree), ...CONFIG_READ], env: {} }
}

/** treeConfig's answer from the output of treeConfigCall. */
export const treeConfigOf = (stdout: string): TreeConfig => ({ entries: configEntries(stdout) })

/**
 * Concord's own git calls on a tree an agent works in (hostile: the agent may have written anything in it, its
 * .git included). The git folder and work tree are named explicitly (no `.git` file or `core.worktree` is
 * followed), no program named by config runs (the overrides of runOwnGit), and writes run in the OS sandbox with
 * only the tree (and `writable`) writable — so a symlink in the git folder that points outside cannot carry them out.
 * Without a sandbox a write is refused unless the git folder passes assertOwnRepository's deep check.
 */
export async function runTreeGit(
  tree: string,
  args: string[],
  opts: TreeGitOptions = {},
): Promise<GitResult & { raw?: Buffer }> {
  const st = await sandboxStatus()
  if (opts.write) assertOwnRepository(tree, !st.available)
  const env = commandEnv(undefined)
  const call = await treeGitCall(tree, args, opts)
  const argv: [string, ...string[]] = ['git', ...call.args]
  const vars = { ...env, ...call.env }
  const inSandbox = opts.write || opts.sandboxed || (opts.writable?.length ?? 0) > 0
  if (!inSandbox || !st.available)
    return spawnGit(argv[0], argv.slice(1), tree, vars, { ...opts, write: false }, args[0])
  const readable = opts.readable ?? []
  const plan = opts.write
    ? await sandboxedSpawn(argv, { root: tree, policy: { readable }, writable: opts.writable, env: vars })
    : opts.writable?.length
      ? await sandboxedSpawn(argv, {
          root: tree,
          policy: { readable, readOnlyTree: 'a tree Concord reads' },
          writable: opts.writable,
          env: vars,
        })
      : await sandboxedSpawn(argv, { root: tree, policy: { readable }, readOnly: true, env: vars })
  return spawnGit(plan.file, plan.args, tree, plan.env, { ...opts, write: false }, args[0])
}
