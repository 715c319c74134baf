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

/** Answers by repository and key: a merge reads under two environments (the scratch home, and your own for `git var`). */
const kept = new Map<string, string>()
const KEPT_MAX = 1_000
/** Reads under way by repository and key: calls made at once share one git process. */
const reading = new Map<string, Promise<string>>()

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

/** What the read gave: git config's output and exit code (1 is "no such key": an answer too). */
export interface ConfigRead {
  stdout: string
  code: number | null
}

/**
 * The read's output in `root` under `key`: the kept answer, the read already under way, or a new one by `read`,
 * kept when git answered (exit 0, or 1 for no match) and the config includes no other file. With a null key it is
 * always read; a read that can be cancelled (`shared` false) is never shared with another call.
 */
export async function ownConfig(
  root: string,
  key: string | null,
  read: () => Promise<ConfigRead>,
  shared = true,
): Promise<string> {
  if (key === null) return (await read()).stdout
  const k = `${root}\0${key}`
  const known = kept.get(k)
  if (known !== undefined) return known
  const pending = shared ? reading.get(k) : undefined
  if (pending) return pending
  const p = read()
    .then((r) => {
      if (r.code === 0 || r.code === 1) keep(k, r.stdout)
      return r.stdout
    })
    .finally(() => {
      if (reading.get(k) === p) reading.delete(k)
    })
  if (shared) reading.set(k, p)
  return p
}

/** Keeps the read's output under `k`, unless the config includes other files. */
function keep(k: string, stdout: string): void {
  const parts = stdout.split('\0')
  for (let i = 1; i < parts.length; i += 2) if (/^include(if)?\./i.test(parts[i] ?? '')) return
  if (kept.size >= KEPT_MAX) kept.clear()
  kept.set(k, stdout)
}

/** The kept answer of the read in `root` under `key`, if any (tests read it). */
export function keptOwnConfig(root: string, key: string | null): string | null {
  return key === null ? null : (kept.get(`${root}\0${key}`) ?? null)
}
