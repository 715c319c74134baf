/**
 * runOwnGit's filter and merge-driver read of a repository, kept while none of the files git read it from changed: a
 * merge makes ~15 runOwnGit calls and each spawned git twice (this read, then the command).
 *
 * Kept only when git is sure to find the repository's config at `<root>/.git/config` (a `.git` folder, not a file or
 * link, that looks like a git folder), with no variable that moves the config or adds to it, and keyed on the identity
 * (device, inode, size, modification and change times in nanoseconds) of `.git/config`, `config.worktree`, `HEAD`
 * and the user's global and system config files as the environment names them. A config that includes other files
 * (include.path, includeIf) is never kept: those files are not in the key.
 */
import { lstatSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'

/** The read runOwnGit makes when the answer may be kept: the include keys too (their presence says not to keep). */
export const OWN_CONFIG_READ = ['config', '-z', '--show-scope', '--get-regexp', '^(filter|merge|include|includeif)\\.']

const kept = new Map<string, { key: string; stdout: string }>()
const KEPT_MAX = 1_000

/** Variables that move where git finds config, or add to it: with any of them set, nothing is kept. */
const MOVES_CONFIG =
  /^(GIT_DIR|GIT_COMMON_DIR|GIT_WORK_TREE|GIT_CEILING_DIRECTORIES|GIT_DISCOVERY_ACROSS_FILESYSTEM|GIT_CONFIG|GIT_CONFIG_COUNT|GIT_CONFIG_PARAMETERS|GIT_CONFIG_KEY_.*|GIT_CONFIG_VALUE_.*)$/

async function fileId(f: string | undefined): Promise<string> {
  if (!f) return '-'
  try {
    const s = await stat(f, { bigint: true })
    return `${f}:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return `${f}:-`
  }
}

function isGitFolder(dir: string): boolean {
  try {
    if (!lstatSync(dir).isDirectory()) return false
    return ['HEAD', 'objects', 'refs'].every((f) => {
      try {
        lstatSync(path.join(dir, f))
        return true
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

/** The key of the read in `root` under `env` (taken before the read), or null when its answer must not be kept. */
export async function ownConfigKey(root: string, env: Record<string, string>): Promise<string | null> {
  if (Object.keys(env).some((k) => MOVES_CONFIG.test(k))) return null
  const dir = path.join(root, '.git')
  if (!isGitFolder(dir)) return null
  const home = env.HOME ?? ''
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config')
  const files = [
    path.join(dir, 'config'),
    path.join(dir, 'config.worktree'),
    path.join(dir, 'HEAD'),
    env.GIT_CONFIG_GLOBAL,
    path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig',
  ]
  const ids = await Promise.all(files.map(fileId))
  return `${env.GIT_CONFIG_NOSYSTEM ?? ''}|${ids.join('|')}`
}

/** The kept answer of the read in `root` under `key`, if any. */
export function keptOwnConfig(root: string, key: string | null): string | null {
  if (key === null) return null
  const k = kept.get(root)
  return k && k.key === key ? k.stdout : null
}

/** Keeps the read's output under `key`, unless the config includes other files. */
export function keepOwnConfig(root: string, key: string | null, stdout: string): void {
  if (key === null) return
  const parts = stdout.split('\0')
  for (let i = 1; i < parts.length; i += 2) {
    if (/^include(if)?\./i.test(parts[i] ?? '')) {
      kept.delete(root)
      return
    }
  }
  if (kept.size >= KEPT_MAX) kept.clear()
  kept.set(root, { key, stdout })
}
