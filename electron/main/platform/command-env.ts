/**
 * The environment of every command and git call: built from an allow-list, never copied from process.env, so
 * provider keys, the bridge token and CONCORD_* settings of the server cannot reach a command's output.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolError } from './tool-error'
import type { SandboxPolicy } from './sandbox-policy'

/** Variables taken from the server's environment when set; nothing else is. */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TERM'] as const

/**
 * Where Concord finds its own programs (bwrap, sandbox-exec, git, env): a fixed list of system folders, never the
 * PATH of a workspace or a member (a relative entry like `node_modules/.bin` would run a planted program as the user).
 */
export const TRUSTED_DIRS = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin', '/opt/homebrew/bin'] as const
export const TRUSTED_PATH = TRUSTED_DIRS.join(':')

const trusted = new Map<string, string | null>()

/**
 * The absolute path of one of Concord's own programs, resolved once: the trusted folders first, then the absolute
 * entries of Concord's own PATH (the user's login, never a workspace's or a member's); null when absent.
 */
export function trustedProgram(name: string): string | null {
  if (!trusted.has(name)) {
    const runnable = (p: string): boolean => {
      try {
        accessSync(p, constants.X_OK)
        return statSync(p).isFile()
      } catch {
        return false
      }
    }
    const own = (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))
    trusted.set(name, [...TRUSTED_DIRS, ...own].map((d) => path.join(d, name)).find(runnable) ?? null)
  }
  return trusted.get(name) ?? null
}

/**
 * The environment of one of Concord's own programs run outside the sandbox (git): the call's variables (a workspace's
 * are checked by assertAllowedEnv; Concord's own GIT_CONFIG_* overrides and GIT_INDEX_FILE stay) without the loader
 * and start-up variables, and PATH the absolute entries of Concord's own PATH (git-lfs and the like), never the PATH
 * of a workspace, whose relative entries would name the tree's programs.
 */
export function ownProgramEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (!LOADER_NAMES.test(k) && !STARTUP_NAMES.test(k)) out[k] = v
  const own = (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))
  out.PATH = own.length ? own.join(path.delimiter) : TRUSTED_PATH
  return out
}

/** Names that look like secrets: refused even when the user sets them per workspace or per agent. */
const SECRET_NAMES = [
  /^CONCORD_/i,
  /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?|KEY|PAT|AUTH)$/i,
  /(^|_)SECRET_/i,
  /PASSWORD|PASSWD/i,
  /^(DATABASE_URL|SSH_AUTH_SOCK|GPG_AGENT_INFO|KUBECONFIG|DOCKER_AUTH_CONFIG|NETRC|[A-Z0-9_]*_DSN|[A-Z0-9_]*CONNECTION_STRING)$/i,
]

/**
 * Names that make a program load or run other code than the one started (the dynamic loader, interpreters'
 * start-up hooks, shells' start-up files) or that name programs and config git runs: refused everywhere.
 */
const LOADER_NAMES = /^(LD|DYLD)_/i
const STARTUP_NAMES =
  /^(NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV|ZDOTDIR|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|IFS|PS4|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PYTHONINSPECT|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|GLIBC_TUNABLES|GCONV_PATH|LOCPATH|HOSTALIASES|RESOLV_HOST_CONF|SSH_ASKPASS|SUDO_ASKPASS)$/i
const PROGRAM_NAMES = [
  LOADER_NAMES,
  STARTUP_NAMES,
  /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|EXEC_PATH|ASKPASS|EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|PROXY_COMMAND|TEMPLATE_DIR|TRACE.*|CONFIG.*|ALLOW_PROTOCOL|PROTOCOL_FROM_USER|REPLACE_REF_BASE|NO_REPLACE_OBJECTS|SHALLOW_FILE|DIFF_OPTS|ATTR_SOURCE|ATTR_NOSYSTEM|CURL_VERBOSE|SSL_NO_VERIFY|HTTP_.*|REDIRECT_.*|QUARANTINE_PATH|TEST_.*|INTERNAL_.*)$/i,
]

/** Variables the sandbox or git depend on: a workspace may not point them elsewhere. */
const RESERVED_NAMES = new Set([
  'HOME',
  'TMPDIR',
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
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
])

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAMES.some((re) => re.test(name))
}

/** A URL with a password in it (`https://user:pass@host`): a secret whatever its name. */
const CREDENTIAL_URL = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i

/**
 * Why a variable may not be set for a command or an agent, or null when it may: a malformed name, a secret-looking
 * name or value (*_API_KEY, *_TOKEN, *_KEY, *PASSWORD*, *_PAT, DATABASE_URL, SSH_AUTH_SOCK, CONCORD_*, a URL with a
 * password), a variable that makes a program run other code (LD_*, DYLD_*, NODE_OPTIONS, BASH_ENV, PYTHONSTARTUP, the
 * GIT_* that name programs or config), or one the sandbox sets itself (HOME, TMPDIR) or that redirects git.
 */
export function envRefusal(name: string, value: unknown, secretHint = 'commands never get secrets'): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return `Environment variable name ${JSON.stringify(name)} is not valid (letters, digits and _ only).`
  if (isSecretEnvName(name)) {
    return `${name} looks like a secret; ${secretHint} (names like *_API_KEY, *_TOKEN, *_KEY, *_SECRET, *PASSWORD*, *_PAT, DATABASE_URL, SSH_AUTH_SOCK, CONCORD_*). Remove it.`
  }
  if (PROGRAM_NAMES.some((re) => re.test(name))) {
    return `${name} would make programs load or run other code (like LD_*, DYLD_*, NODE_OPTIONS, BASH_ENV, PYTHONSTARTUP, GIT_SSH_COMMAND, GIT_CONFIG_*); it cannot be set. Remove it.`
  }
  if (RESERVED_NAMES.has(name.toUpperCase())) return `${name} is set by Concord and cannot be changed here.`
  if (typeof value !== 'string' || value.includes('\0'))
    return `The value of ${name} must be a string without NUL characters.`
  if (CREDENTIAL_URL.test(value))
    return `The value of ${name} is a URL with a password in it; ${secretHint}. Remove the password.`
  return null
}

/**
 * Why a name may not carry an agent's key, or null when it may: a variable name (letters, digits and _) that looks like
 * a secret (isSecretEnvName: OPENAI_API_KEY, ANTHROPIC_API_KEY, QWEN_TOKEN, …), so that the sandbox passes it in the
 * launcher's environment and never on a command line, and never one of Concord's own (CONCORD_*).
 */
export function keyVariableRefusal(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return `${JSON.stringify(name)} is not an environment variable name (letters, digits and _, not starting with a digit).`
  if (/^CONCORD_/i.test(name))
    return `${name} is one of Concord's own variables; name the variable the agent reads its key from.`
  if (!isSecretEnvName(name))
    return `${name} does not look like a key's variable (names like *_API_KEY, *_TOKEN, *_KEY, *_SECRET): Concord passes a key only in such a variable, which never appears on a command line.`
  return null
}

/** Values that are keys whatever names them: the prefixes providers and forges give their keys and tokens. */
const KEY_VALUE = /^(sk-|sk_|rk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abpr]-|AIza|hf_)[A-Za-z0-9_-]{12,}$/

/**
 * Why an argument of an agent's command line may not be saved, or null when it may: the same rule as a variable's
 * (envRefusal: a secret-looking name, a URL with a password), applied to the `NAME=value` and `--name=value` forms and
 * to a `--name value` pair (`--api-key sk-…`, `--token …`), plus a value that is a key by its form (sk-…, ghp_…).
 * Every process of the machine can read a command line, and the member's settings are returned by the API: a key
 * goes in the secret store and reaches the agent in its key variable.
 */
export function argRefusal(args: readonly string[], secretHint: string): string | null {
  const flagName = (a: string) => a.replace(/^-+/, '').replace(/-/g, '_')
  for (const [i, arg] of args.entries()) {
    const eq = /^(-{0,2}[A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/s.exec(arg)
    const name = eq ? flagName(eq[1]!) : null
    const value = eq ? eq[2]! : arg
    const next = args[i + 1]
    const pairName =
      !eq && /^--?[A-Za-z]/.test(arg) && next !== undefined && !next.startsWith('-') ? flagName(arg) : null
    for (const n of [name, pairName]) {
      if (n && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && isSecretEnvName(n))
        return `Argument ${i + 1} (${eq ? eq[1] : arg}) passes a secret on the command line; ${secretHint}. Remove it.`
    }
    if (KEY_VALUE.test(value.trim()))
      return `Argument ${i + 1} looks like a key (${value.trim().slice(0, 4)}…); ${secretHint}. Remove it.`
    if (CREDENTIAL_URL.test(value))
      return `Argument ${i + 1} is a URL with a password in it; ${secretHint}. Remove the password.`
  }
  return null
}

/**
 * Throws ToolError 'env_refused' for a workspace variable that may not be set (envRefusal). Also meant for the settings
 * form, before the variables are saved.
 */
export function assertAllowedEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    const why = envRefusal(name, value)
    if (why) throw new ToolError('env_refused', why)
  }
}

/**
 * PATH as a program inside the sandbox sees it: a relative entry (`node_modules/.bin`, or an empty one, which means
 * the working folder) made absolute under the tree, so that it names the tree's folder wherever the command cds to.
 */
export function treePath(value: string, root: string): string {
  return value
    .split(':')
    .map((d) => (path.isAbsolute(d) ? d : path.join(root, d)))
    .join(':')
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
    throw new ToolError(
      'scratch_unavailable',
      `Could not create the member's scratch folder (HOME and TMPDIR of commands): ${(err as NodeJS.ErrnoException).code ?? String(err)}.`,
    )
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
export function commandEnv(
  policy: SandboxPolicy | undefined,
  scratch: ScratchPaths = scratchPaths(policy),
): Record<string, string> {
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
