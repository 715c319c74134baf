/**
 * The program overrides of Concord's git calls: a repository's own config can name programs that git runs (see
 * git.ts), so every call sets those keys back with `-c`, and the repository's filter and merge drivers back to the
 * user's own definitions (or to nothing) through GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n>.
 */
import { spawnGit } from './git-spawn'

/**
 * Config overrides for every call: no program named by repository config runs. Command-line `-c` beats every config
 * file. Keys that need a per-name override (filter drivers) are handled by repositoryFilters. Trusted programs of the
 * user's own config are lost for these calls only where the key is overridden wholesale (fsmonitor, pager).
 */
export const NO_PROGRAMS = [
  'core.quotepath=false',
  'core.fsmonitor=false', // run by status, diff and add to list changed files
  'core.pager=cat',
  'core.editor=false', // fail rather than start an editor
  'diff.external=', // with --no-ext-diff
  'log.showSignature=false', // would run gpg.program in git show
  'core.sshCommand=false',
  'credential.helper=',
  'core.askPass=',
  'gc.auto=0', // no background gc or maintenance started by a commit
  'maintenance.auto=false',
  // A merge with merge.verifySignatures runs gpg.program (any of the signature formats) on the merged commits.
  'merge.verifySignatures=false',
  'gpg.program=false',
  'gpg.openpgp.program=false',
  'gpg.x509.program=false',
  'gpg.ssh.program=false',
  'gpg.ssh.defaultKeyCommand=false',
  'protocol.ext.allow=never', // ext:: URLs run a command line
  'submodule.recurse=false', // git in submodules reads their own config, which none of this covers
  'fetch.recurseSubmodules=false',
]

/** Scopes whose config the user wrote; 'local', 'worktree' (and includes from them) are the repository's. */
const TRUSTED_SCOPES = new Set(['system', 'global'])

interface RepositoryFilters {
  /** Filter drivers the repository's own config (re)defines. */
  drivers: string[]
  /** Environment that sets them back to the user's definitions, or to nothing. */
  env: Record<string, string>
}

/** `git config -z --show-scope` output as [scope, "key\nvalue"] pairs (it prints "scope\0key\nvalue\0" per entry). */
export function configEntries(stdout: string): [string, string][] {
  const parts = stdout.split('\0')
  const out: [string, string][] = []
  for (let i = 0; i + 1 < parts.length; i += 2) out.push([parts[i] ?? '', parts[i + 1] ?? ''])
  return out
}

/**
 * `filter.<driver>.clean/smudge/process` cannot be overridden with a wildcard, so: every driver the repository's
 * config defines is set back to the user's own definition (git-lfs in ~/.gitconfig keeps working), or to nothing, and
 * marked not required (a required driver without a program is a fatal error). Passed as GIT_CONFIG_KEY_<n> /
 * GIT_CONFIG_VALUE_<n> (above every config file) because a driver name may contain '=', which `-c` cannot carry.
 */
export async function repositoryFilters(
  root: string,
  env: Record<string, string>,
  signal?: AbortSignal,
  entries?: [string, string][],
): Promise<RepositoryFilters> {
  entries ??= configEntries(
    (
      await spawnGit('git', ['config', '-z', '--show-scope', '--get-regexp', '^filter\\.'], root, env, {
        signal,
        allowFailure: true,
      })
    ).stdout,
  )
  const trusted = new Map<string, string>()
  const tainted = new Map<string, Set<string>>() // driver -> the program keys the repository sets
  for (const [scope, entry] of entries) {
    const nl = entry.indexOf('\n')
    const key = nl < 0 ? entry : entry.slice(0, nl)
    const value = nl < 0 ? '' : entry.slice(nl + 1)
    const m = /^filter\.(.+)\.(clean|smudge|process|required)$/is.exec(key)
    if (!m) continue
    const [, driver = '', kind = ''] = m
    const name = kind.toLowerCase()
    if (TRUSTED_SCOPES.has(scope)) trusted.set(`${driver}\0${name}`, value)
    else if (name !== 'required') tainted.set(driver, (tainted.get(driver) ?? new Set()).add(name))
  }
  const overrides: [string, string][] = []
  for (const [driver, keys] of tainted) {
    const user = (name: string): string | undefined => trusted.get(`${driver}\0${name}`)
    for (const name of ['clean', 'smudge', 'process']) {
      const v = user(name) ?? (keys.has(name) ? '' : undefined)
      if (v !== undefined) overrides.push([`filter.${driver}.${name}`, v])
    }
    // An empty `process` (set, even to nothing) makes git ignore clean and smudge: then the driver does nothing.
    const processBlanked = keys.has('process') && !user('process')
    const works = !!user('process') || (!processBlanked && !!(user('clean') || user('smudge')))
    overrides.push([`filter.${driver}.required`, works ? (user('required') ?? 'false') : 'false'])
  }
  const out: Record<string, string> = overrides.length ? { GIT_CONFIG_COUNT: String(overrides.length) } : {}
  overrides.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${i}`] = k
    out[`GIT_CONFIG_VALUE_${i}`] = v
  })
  return { drivers: [...tainted.keys()], env: out }
}

/**
 * Merge drivers the repository's own config defines (`merge.<driver>.driver`, run on a conflict) set back to the
 * user's own definition, or to `false` (the file stays conflicted), as GIT_CONFIG_KEY_<n> entries after `start`.
 */
export function repositoryMergeDrivers(entries: [string, string][], start: number): Record<string, string> {
  const trusted = new Map<string, string>()
  const tainted = new Set<string>()
  for (const [scope, entry] of entries) {
    const nl = entry.indexOf('\n')
    const key = nl < 0 ? entry : entry.slice(0, nl)
    if (!/^merge\..*\.driver$/is.test(key)) continue
    if (TRUSTED_SCOPES.has(scope)) trusted.set(key, nl < 0 ? '' : entry.slice(nl + 1))
    else tainted.add(key)
  }
  const out: Record<string, string> = {}
  let n = start
  for (const key of tainted) {
    out[`GIT_CONFIG_KEY_${n}`] = key
    out[`GIT_CONFIG_VALUE_${n}`] = trusted.get(key) ?? 'false'
    n++
  }
  if (n > start) out.GIT_CONFIG_COUNT = String(n)
  return out
}
