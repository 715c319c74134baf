/**
 * The filter and merge-driver config of many trees (what runTreeGit overrides), read again only for a tree whose
 * config may have changed: a check of 50 tasks against a new base read 50 unchanged configs at every move.
 *
 * An answer is kept with the identity of every file git read it from (inode, size, modification and change times in
 * nanoseconds: an agent cannot set a change time back): the tree's `.git/config` and `config.worktree`, the user's
 * global config as git gets it (GIT_CONFIG_GLOBAL, the HOME git is given) and the system's. A config that includes
 * other files (include.path, includeIf) names files not in that list, so its answer is never kept.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { commandEnv } from './command-env'
import { treeConfigOf, type TreeConfig, type TreeGitCall } from './tree-git'

/** treeConfigCall's read, with the include keys too (their presence is what says not to keep the answer). */
export function cachedConfigCall(call: TreeGitCall): TreeGitCall {
  const at = call.args.indexOf('--get-regexp')
  const args = [...call.args]
  args[at + 1] = '^(filter|merge|include|includeif)\\.'
  return { ...call, args }
}

const kept = new Map<string, { key: string; config: TreeConfig }>()
const KEPT_MAX = 5_000

/** A file's identity: it changes when the file is written, replaced or removed. */
async function fileId(f: string | undefined): Promise<string> {
  if (!f) return '-'
  try {
    const s = await stat(f, { bigint: true })
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return '-'
  }
}

/** The kept config of each tree, or null when it must be read (then `keep` records what was read). */
export async function keptConfigs(trees: string[]): Promise<{ config: TreeConfig | null; key: string }[]> {
  const env = commandEnv(undefined)
  const home = env.HOME ?? ''
  const global = (
    await Promise.all(
      [
        env.GIT_CONFIG_GLOBAL,
        path.join(home, '.gitconfig'),
        path.join(home, '.config', 'git', 'config'),
        '/etc/gitconfig',
      ].map(fileId),
    )
  ).join('|')
  return Promise.all(
    trees.map(async (tree) => {
      const own = await Promise.all(['config', 'config.worktree'].map((f) => fileId(path.join(tree, '.git', f))))
      const key = `${own.join('|')}|${global}`
      const k = kept.get(tree)
      return { config: k && k.key === key ? k.config : null, key }
    }),
  )
}

/** Keeps what cachedConfigCall read for the tree under `key` (taken before the read), unless it includes files. */
export function keepConfig(tree: string, key: string, stdout: string): TreeConfig {
  const config = treeConfigOf(stdout)
  if (config.entries.some(([, entry]) => /^include(if)?\./i.test(entry))) {
    kept.delete(tree)
    return config
  }
  if (kept.size >= KEPT_MAX) kept.clear()
  kept.set(tree, { key, config })
  return config
}
