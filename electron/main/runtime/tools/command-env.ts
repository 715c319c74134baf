/**
 * The environment of every command and git call: built from an allow-list, never copied from process.env, so
 * provider keys, the bridge token and CONCORD_* settings of the server cannot reach a command's output.
 */
import { existsSync, mkdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolError, type SandboxPolicy } from './types'

/** Variables taken from the server's environment when set; nothing else is. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TERM'] as const

/** Names that look like secrets: refused even when the user sets them per workspace. */
const SECRET_NAMES = [/^CONCORD_/i, /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)$/i, /(^|_)SECRET_/i]

/** Variables the sandbox or git depend on: a workspace may not point them elsewhere. */
const RESERVED_NAMES = new Set([
  'HOME',
  'TMPDIR',
  'GIT_CONFIG_GLOBAL',
  // These would make git operate on a repository other than the workspace.
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CEILING_DIRECTORIES',
])

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAMES.some((re) => re.test(name))
}

/**
 * Throws ToolError 'env_refused' for a workspace variable that may not be set: a secret-looking name (*_API_KEY,
 * *_TOKEN, *_SECRET, CONCORD_*, ...), a variable the sandbox sets itself (HOME, TMPDIR), one that redirects git, or a
 * malformed name. Also meant for the settings form, before the variables are saved.
 */
export function assertAllowedEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ToolError('env_refused', `Environment variable name ${JSON.stringify(name)} is not valid (letters, digits and _ only).`)
    }
    if (isSecretEnvName(name)) {
      throw new ToolError('env_refused', `${name} looks like a secret; commands never get secrets (names like *_API_KEY, *_TOKEN, *_SECRET, CONCORD_*). Remove it from the workspace variables.`)
    }
    if (RESERVED_NAMES.has(name.toUpperCase()) || /^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/i.test(name)) {
      throw new ToolError('env_refused', `${name} is set by Concord for every command and cannot be changed per workspace.`)
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new ToolError('env_refused', `The value of ${name} must be a string without NUL characters.`)
    }
  }
}

export interface ScratchPaths {
  home: string
  tmp: string
}

/** The member's scratch HOME and TMPDIR (created, private to the user). */
export function scratchPaths(policy: SandboxPolicy | undefined): ScratchPaths {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user'
  const base = path.resolve(policy?.scratchDir ?? path.join(os.tmpdir(), `concord-scratch-${uid}`))
  const paths = { home: path.join(base, 'home'), tmp: path.join(base, 'tmp') }
  try {
    mkdirSync(paths.home, { recursive: true, mode: 0o700 })
    mkdirSync(paths.tmp, { recursive: true, mode: 0o700 })
  } catch (err) {
    throw new ToolError('scratch_unavailable', `Could not create the member's scratch folder (HOME and TMPDIR of commands): ${(err as NodeJS.ErrnoException).code ?? String(err)}.`)
  }
  return paths
}

/** The user's own global git config (identity, aliases): git gets it although HOME is the scratch home. */
function userGitConfig(): string | undefined {
  const home = os.homedir()
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config')
  return [path.join(home, '.gitconfig'), path.join(xdg, 'git', 'config')].find((p) => existsSync(p))
}

/**
 * The allow-listed environment: PATH, LANG, LC_ALL, TERM from the server (when set), HOME and TMPDIR in the member's
 * scratch folder, git's prompts and pagers off, then the workspace's own variables (checked by assertAllowedEnv).
 */
export function commandEnv(policy: SandboxPolicy | undefined, scratch: ScratchPaths = scratchPaths(policy)): Record<string, string> {
  const extra = policy?.env ?? {}
  assertAllowedEnv(extra)
  const inherited: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', TERM: 'dumb' }
  for (const name of INHERITED) {
    const v = process.env[name]
    if (v !== undefined) inherited[name] = v
  }
  const gitConfig = userGitConfig()
  return {
    ...inherited,
    ...extra,
    HOME: scratch.home,
    TMPDIR: scratch.tmp,
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    ...(gitConfig ? { GIT_CONFIG_GLOBAL: gitConfig } : {}),
  }
}
