/**
 * The OS sandbox around run_command and git: bubblewrap on Linux, sandbox-exec on macOS.
 *
 * Both are called directly rather than through @anthropic-ai/sandbox-runtime (the alternative): no extra dependency,
 * and full control over the policy, which is small. Policy: the workspace (and the member's scratch HOME and TMPDIR)
 * writable, the system read-only, a private /tmp, the user's home an empty folder (deny by default: only the install
 * roots of the programs on PATH that live there and the user's git config are shown, read-only), the data folder and
 * the `hide` list invisible, a shared checkout's `.git` read-only, no network unless allowed, and (Linux) a PID
 * namespace that dies with the command, so nothing a command starts outlives it, the turn or Concord.
 *
 * bwrap and sandbox-exec are Concord's own programs: found on the trusted path (command-env.ts trustedProgram) and
 * started with a fixed environment. The command's variables reach only the process inside the sandbox: bwrap sets
 * them with --setenv after it has started, sandbox-exec through /usr/bin/env inside the profile. So neither a
 * relative PATH entry nor a loader variable of a workspace can replace or enter Concord's own programs.
 *
 * When no sandbox is available a command still runs (own process group, allow-listed environment) and its result says
 * "not sandboxed". CONCORD_SANDBOX=off, read once at the first check, forces that.
 */
import { accessSync, constants, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  commandEnv,
  isSecretEnvName,
  scratchPaths,
  TRUSTED_DIRS,
  TRUSTED_PATH,
  treePath,
  trustedProgram,
} from './command-env'
import type { SandboxPolicy } from './sandbox-policy'
import { spawnOffLoop } from './spawner'

export type SandboxKind = 'bwrap' | 'sandbox-exec'

export interface SandboxStatus {
  available: boolean
  kind: SandboxKind | null
  /** Why there is no sandbox, in words a person can act on. */
  reason?: string
}

/**
 * Credential folders and files of the real home: the home is hidden as a whole, and these stay hidden where a part of
 * the home is shown (an install root, an agent's state folder, a tree in the home).
 */
export const HOME_SECRETS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.password-store',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  // Inside install roots a command may be shown (~/.cargo for ~/.cargo/bin).
  '.cargo/credentials',
  '.cargo/credentials.toml',
]

// The flags every bwrap sandbox uses. The availability check runs them too: bwrap may be installed and still fail
// (unprivileged user namespaces disabled, no permission for a network namespace).
const BWRAP_BASE = [
  '--die-with-parent', // SIGKILL the sandbox when its parent (Concord) dies
  '--unshare-pid', // when the command exits, the kernel kills everything it started, setsid or not
  '--new-session', // no TIOCSTI into a terminal
  '--unshare-ipc',
  '--cap-drop',
  'ALL', // run as root, the command could otherwise unmount what hides the data folder
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
]

let status: Promise<SandboxStatus> | undefined

/** Which sandbox commands run in here, detected once (the UI shows it in member settings and approval cards). */
export function sandboxStatus(): Promise<SandboxStatus> {
  status ??= detect()
  return status
}

async function detect(): Promise<SandboxStatus> {
  if (process.env.CONCORD_SANDBOX === 'off') {
    return { available: false, kind: null, reason: 'the sandbox is turned off (CONCORD_SANDBOX=off)' }
  }
  if (process.platform === 'linux') {
    const bwrap = trustedProgram('bwrap')
    const r = bwrap
      ? await probe(bwrap, [...BWRAP_BASE, '--unshare-net', 'true'])
      : { missing: true, code: -1, stderr: '' }
    if (r.missing)
      return {
        available: false,
        kind: null,
        reason: `bubblewrap is not installed (looked in ${TRUSTED_DIRS.join(', ')}): install it (e.g. apt install bubblewrap)`,
      }
    if (r.code !== 0)
      return {
        available: false,
        kind: null,
        reason: `bubblewrap cannot create a sandbox here: ${r.stderr || `exit code ${r.code}`}`,
      }
    return { available: true, kind: 'bwrap' }
  }
  if (process.platform === 'darwin') {
    const r = await probe('/usr/bin/sandbox-exec', ['-p', '(version 1)(allow default)', '/usr/bin/true'])
    if (r.missing) return { available: false, kind: null, reason: 'sandbox-exec is not available on this Mac' }
    if (r.code !== 0)
      return { available: false, kind: null, reason: `sandbox-exec fails here: ${r.stderr || `exit code ${r.code}`}` }
    return { available: true, kind: 'sandbox-exec' }
  }
  return { available: false, kind: null, reason: `no sandbox is supported on ${process.platform}` }
}

function probe(file: string, args: string[]): Promise<{ code: number; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    const child = spawnOffLoop(file, args, { env: { PATH: TRUSTED_PATH } })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    child.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ code: -1, stderr: err.message, missing: err.code === 'ENOENT' }),
    )
    child.on('close', (code) => resolve({ code: code ?? -1, stderr: stderr.trim(), missing: false }))
  })
}

// ---------------------------------------------------------------------------------------------------------------------
// spawning in the sandbox

export interface SandboxRequest {
  /** Real path of the workspace: the working directory, writable unless readOnly. */
  root: string
  policy?: SandboxPolicy
  /** Nothing writable and no network (the git calls that need no approval). */
  readOnly?: boolean
  /** More writable folders (a worktree's git folders outside the workspace). */
  writable?: string[]
  /** The environment, when the caller built it (commandEnv of the policy by default). */
  env?: Record<string, string>
  /**
   * Concord's own commit (git_commit's add and commit, hooks and programs off): the tree's `.git` stays writable for
   * this call although the policy protects it (userCheckout). Never set for a command.
   */
  writableGitDir?: boolean
  /**
   * Only the root is writable: no scratch HOME or TMPDIR, nothing else (Concord's own copy into a task's tree, which
   * an agent's link must not lead anywhere else). /tmp is still a private, empty folder.
   */
  onlyRoot?: boolean
}

export interface SandboxedSpawn {
  /** An absolute path: bwrap or sandbox-exec from the trusted path, or the program itself without a sandbox. */
  file: string
  args: string[]
  /** The environment to spawn `file` with (fixed for bwrap and sandbox-exec; the command's own runs inside). */
  env: Record<string, string>
  cwd: string
  sandboxed: boolean
  /** Why the command is not sandboxed. */
  reason?: string
}

/** How to spawn `argv` under the request's policy: inside the sandbox when there is one, else directly. */
export async function sandboxedSpawn(
  argv: [program: string, ...args: string[]],
  req: SandboxRequest,
): Promise<SandboxedSpawn> {
  const scratch = scratchPaths(req.policy)
  const env = insideEnv(req.env ?? commandEnv(req.policy, scratch), req.root)
  const program = ownProgram(argv[0])
  const st = await sandboxStatus()
  if (!st.available)
    return { file: program, args: argv.slice(1), env, cwd: req.root, sandboxed: false, reason: st.reason }
  // A read-only checkout keeps the command's scratch writable: tests can still run, only the tree cannot change.
  const rootWritable = !req.readOnly && !req.policy?.readOnlyTree
  const gitDir = rootWritable && req.policy?.userCheckout && !req.writableGitDir ? treeGitDir(req.root) : null
  const plan: Plan = {
    cwd: req.root,
    writable: req.readOnly
      ? []
      : req.onlyRoot
        ? uniqueReal(rootWritable ? [req.root] : [])
        : uniqueReal([...(rootWritable ? [req.root] : []), scratch.home, scratch.tmp, ...(req.writable ?? [])]),
    readOnly: uniqueReal([
      ...(rootWritable ? [] : [req.root]),
      ...(gitDir ? [gitDir] : []),
      ...(req.policy?.readable ?? []),
      ...homeExposed(env, [program], rootWritable ? [req.root] : []),
    ]),
    hide: hiddenPaths(req.policy),
    network: !req.readOnly && req.policy?.network === true,
    privateTmp: !req.readOnly,
  }
  return wrap(st.kind!, plan, [program, ...argv.slice(1)], env)
}

/** The launcher of the sandbox for `argv` under `plan`, with a fixed environment; `env` is the inside's. */
function wrap(kind: SandboxKind, plan: Plan, argv: string[], env: Record<string, string>): SandboxedSpawn {
  // Secrets Concord itself hands a program (an agent's API key) stay off the command line, which every process of
  // the machine can read: they ride in the launcher's own environment, a name no launcher reads.
  const secret = Object.fromEntries(Object.entries(env).filter(([k]) => isSecretEnvName(k)))
  const plain = Object.entries(env).filter(([k]) => !isSecretEnvName(k))
  const fixed = { PATH: TRUSTED_PATH, ...secret }
  if (kind === 'bwrap') {
    const bwrap = trustedProgram('bwrap')!
    const setenv = plain.flatMap(([k, v]) => ['--setenv', k, v])
    return { file: bwrap, args: bwrapArgs(plan, argv, setenv), env: fixed, cwd: plan.cwd, sandboxed: true }
  }
  const vars = plain.map(([k, v]) => `${k}=${v}`)
  return {
    file: '/usr/bin/sandbox-exec',
    args: ['-p', seatbeltProfile(plan), '/usr/bin/env', ...vars, ...argv],
    env: fixed,
    cwd: plan.cwd,
    sandboxed: true,
  }
}

/**
 * A program Concord names by itself ('git'), as an absolute path on the trusted path, so that the PATH of the inside
 * never decides which git Concord's own call runs. A path, or a name not found there, is kept.
 */
function ownProgram(program: string): string {
  if (program.includes('/')) return program
  return trustedProgram(program) ?? program
}

/** The environment inside: PATH entries that are relative made absolute under the tree (treePath). */
function insideEnv(env: Record<string, string>, root: string): Record<string, string> {
  return env.PATH === undefined ? env : { ...env, PATH: treePath(env.PATH, root) }
}

/**
 * The tree's own git entry (`<root>/.git`, a folder, or the file of a linked worktree), found by Concord with lstat
 * and never by following what a file in the tree says: read-only in a shared checkout, so a command cannot plant a
 * hook, `core.fsmonitor` or a new `gitdir:` that the user's own git would later follow. A git folder elsewhere is
 * read-only anyway (outside the writable set).
 */
function treeGitDir(root: string): string | null {
  const p = path.join(root, '.git')
  try {
    const st = lstatSync(p)
    return st.isDirectory() || st.isFile() ? p : null
  } catch {
    return null
  }
}

/** What an external agent (ACP) may touch: its working folder and its own state, with the network on. */
export interface AgentSandboxRequest {
  /** The member's working folder (task worktree or shared checkout): the working directory, writable unless readOnly. */
  root: string
  /** The checkout is read-only for this turn (verifying): the agent may still write its own state. */
  readOnly?: boolean
  /** The agent's own state (isolated home, CODEX_HOME, ...), its TMPDIR, a worktree's git folders. */
  writable: string[]
  /** Shown read-only even where hidden (the folder of the socket its MCP server connects through). */
  readable?: string[]
  /** Concord's data folder: invisible, like for commands (other members' homes are in it). */
  dataDir?: string
  /** More paths hidden (folders look empty, files read as empty). */
  hide?: string[]
  /** TMPDIR under sandbox-exec (bwrap gives the agent a private, empty /tmp of its own). */
  tmp: string
  /** The folder is the user's own checkout (a shared workspace): its `.git` is read-only (see treeGitDir). */
  userCheckout?: boolean
}

/**
 * How to spawn an external agent: the same mounts as run_command (private /tmp, the rest read-only, the home an empty
 * folder but for the agent's own state, its program and the user's git config, the data folder hidden, a PID
 * namespace), but with the network on, since the agent must reach its model endpoint. Without a sandbox it runs
 * directly and `reason` says why.
 */
export async function sandboxedAgentSpawn(
  argv: [program: string, ...args: string[]],
  env: Record<string, string>,
  req: AgentSandboxRequest,
): Promise<SandboxedSpawn> {
  // The agent's program is found on Concord's own PATH, never on the member's: env.PATH reaches only the inside.
  const program = agentProgram(argv[0])
  const st = await sandboxStatus()
  const inside = insideEnv(env, req.root)
  if (!st.available)
    return { file: program, args: argv.slice(1), env: inside, cwd: req.root, sandboxed: false, reason: st.reason }
  // A fresh /tmp per process: measured with Gemini CLI 0.61, a temporary folder kept from a killed process makes the
  // next one wait at start.
  const tmp = st.kind === 'bwrap' ? '/tmp' : req.tmp
  const vars = { ...inside, TMPDIR: tmp }
  const argvAbs: [string, ...string[]] = [program, ...argv.slice(1)]
  const gitDir = !req.readOnly && req.userCheckout ? treeGitDir(req.root) : null
  const plan: Plan = {
    cwd: req.root,
    writable: uniqueReal([...(req.readOnly ? [] : [req.root]), ...req.writable, ...(st.kind === 'bwrap' ? [] : [tmp])]),
    readOnly: uniqueReal([
      ...(req.readOnly ? [req.root] : []),
      ...(gitDir ? [gitDir] : []),
      ...(req.readable ?? []),
      ...programRoots(argvAbs),
      ...homeExposed(vars, argvAbs, req.readOnly ? [] : [req.root]),
    ]),
    hide: hiddenPaths({ dataDir: req.dataDir, hide: req.hide }),
    network: true,
    privateTmp: true,
  }
  return wrap(st.kind!, plan, argvAbs, vars)
}

/**
 * A bare program name looked up on Concord's own PATH (absolute entries only); kept as it is when not found there (it
 * is then looked up inside the sandbox) or when it is a path.
 */
function agentProgram(program: string): string {
  if (program.includes('/')) return program
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const file = path.join(dir, program)
    try {
      accessSync(file, constants.X_OK)
      if (statSync(file).isFile()) return file
    } catch {
      // not here
    }
  }
  return program
}

/**
 * What the agent's program needs to read: for each absolute path in its command line, the outermost node_modules it
 * lives in (an adapter imports its SDK and CLI from there), else its folder. Read-only, and on top of the private
 * /tmp, so an installation under /tmp (a CI checkout, npx's cache) is still there inside the sandbox.
 */
function programRoots(argv: string[]): string[] {
  const roots: string[] = []
  for (const arg of argv) {
    if (!path.isAbsolute(arg)) continue
    const file = real(arg)
    if (!file) continue
    const parts = file.split(path.sep)
    const top = parts.indexOf('node_modules')
    roots.push(top > 0 ? parts.slice(0, top + 1).join(path.sep) : path.dirname(file))
  }
  return roots
}

interface Plan {
  cwd: string
  writable: string[]
  /** Shown read-only even when under a hidden path. */
  readOnly: string[]
  hide: string[]
  network: boolean
  privateTmp: boolean
}

function real(p: string): string | null {
  try {
    // The system's realpath: one call, where Node's own walks the path with an lstat per part.
    return realpathSync.native(path.resolve(p))
  } catch {
    return null
  }
}

function uniqueReal(paths: string[]): string[] {
  return [...new Set(paths.map(real).filter((p): p is string => p !== null))]
}

/** The real home, hidden as a whole, unless it is a system folder (a service account whose home is /). */
function userHome(): string | null {
  const home = real(os.homedir())
  if (!home || home === path.sep || ['/usr', '/bin', '/etc', '/var', '/tmp', '/opt', '/lib'].includes(home)) return null
  return home
}

/** The data folder, the policy's hide list, the real home and the credential folders in it that exist. */
function hiddenPaths(policy: SandboxPolicy | undefined): string[] {
  const home = userHome()
  const secrets = HOME_SECRETS.map((p) => path.join(os.homedir(), p))
  return uniqueReal([
    ...(home ? [home] : []),
    ...(policy?.dataDir ? [policy.dataDir] : []),
    ...(policy?.hide ?? []),
    ...secrets,
  ])
}

/**
 * What of the hidden home a program needs, shown read-only: the install root of each PATH entry that lives there
 * (~/.nvm/versions/node/v20 for ~/.nvm/versions/node/v20/bin, ~/.pyenv for ~/.pyenv/shims, ~/.local/bin and
 * ~/.local/lib for ~/.local/bin), of the programs started and of Concord's own Node, and the user's git config
 * (GIT_CONFIG_GLOBAL: their identity for commits). Never the home itself, nothing inside `shown` (the tree).
 */
function homeExposed(env: Record<string, string>, programs: string[], shown: string[]): string[] {
  const home = userHome()
  if (!home) return []
  const out: string[] = []
  const inShown = (p: string): boolean => shown.some((s) => within(p, real(s) ?? s))
  const add = (p: string | null): void => {
    // Never the home itself; nothing inside the writable tree (its node_modules/.bin stays writable).
    if (p && p !== home && within(p, home) && !inShown(p)) out.push(p)
  }
  const installRoot = (d: string): void => {
    const rel = path.relative(home, d).split(path.sep)
    if (rel[0] === '.local' && rel.length === 2) {
      // ~/.local also holds other programs' data (keyrings, histories): only its programs and their libraries.
      add(d)
      add(real(path.join(home, '.local', 'lib')))
    } else if (rel.length >= 2 && ['bin', 'sbin', 'shims'].includes(path.basename(d))) add(path.dirname(d))
    else add(d)
  }
  const entries = (env.PATH ?? '').split(':').filter((d) => path.isAbsolute(d))
  const bins = [
    ...entries,
    ...[...programs, process.execPath].filter((p) => path.isAbsolute(p)).map((p) => path.dirname(p)),
  ]
  for (const dir of bins) {
    const d = real(dir)
    if (!d || d === home || !within(d, home)) continue
    installRoot(d)
    // A program on PATH may be a link into another root (npm's bin links, pipx's venvs, a version manager's current).
    for (const target of linkTargets(d)) if (within(target, home)) installRoot(path.dirname(target))
  }
  // The user's git identity: for commands through GIT_CONFIG_GLOBAL, for an agent with the real home in its place.
  for (const f of [env.GIT_CONFIG_GLOBAL, path.join(home, '.gitconfig'), path.join(home, '.config', 'git', 'config')])
    if (f && path.isAbsolute(f)) add(real(f))
  // Nested roots collapse into the outermost one.
  const unique = [...new Set(out)]
  return unique.filter((p) => !unique.some((q) => q !== p && within(p, q)))
}

/** How long a PATH folder's links are taken as read (with its mtime unchanged): see linkTargets. */
const LINKS_FOR_MS = 5000
const links = new Map<string, { mtimeMs: number; at: number; targets: string[] }>()

/**
 * Where the links in a PATH folder lead (outside it), read again when the folder changed (an entry added, removed or
 * re-linked changes its mtime) or after LINKS_FOR_MS: every sandboxed spawn needs them, and reading a folder of 150
 * shims with a realpath each took ~10 ms of the event loop per spawn (a check of 50 tasks against the base spawns
 * hundreds of sandboxed git processes).
 */
function linkTargets(d: string): string[] {
  let mtimeMs: number
  try {
    mtimeMs = statSync(d).mtimeMs
  } catch {
    return []
  }
  const at = Date.now()
  const known = links.get(d)
  if (known && known.mtimeMs === mtimeMs && at - known.at < LINKS_FOR_MS) return known.targets
  const targets: string[] = []
  for (const name of safeReaddir(d)) {
    const target = real(path.join(d, name))
    if (target && target !== path.join(d, name) && !within(target, d)) targets.push(target)
  }
  links.set(d, { mtimeMs, at, targets })
  return targets
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, 2000)
  } catch {
    return []
  }
}

const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/**
 * Mount order matters: a hidden path that contains the workspace (worktrees kept in the data folder) is hidden first
 * and the workspace bound on top; a hidden path inside the workspace is hidden after the workspace is bound.
 */
function orderedHides(plan: Plan): { before: string[]; after: string[] } {
  const exposed = [...plan.writable, ...plan.readOnly]
  const inExposed = (h: string): boolean => exposed.some((e) => h !== e && within(h, e))
  // A hidden path inside another (a credential folder in the hidden home) is hidden already, unless it is shown again.
  const hide = plan.hide.filter((h) => inExposed(h) || !plan.hide.some((o) => o !== h && within(h, o)))
  const after = hide.filter(inExposed)
  return { before: hide.filter((h) => !after.includes(h)), after }
}

/** The folders shown, outer ones first, so that a folder shown inside another (the read-only `.git`) lands on top. */
function orderedBinds(plan: Plan): { path: string; writable: boolean }[] {
  const binds = [
    ...plan.writable.map((p) => ({ path: p, writable: true })),
    ...plan.readOnly.map((p) => ({ path: p, writable: false })),
  ]
  const depth = (p: string): number => p.split(path.sep).length
  return binds.sort((x, y) => depth(x.path) - depth(y.path))
}

function bwrapArgs(plan: Plan, argv: string[], setenv: string[]): string[] {
  const a = [...BWRAP_BASE]
  if (!plan.network) a.push('--unshare-net')
  if (plan.privateTmp) a.push('--tmpfs', '/tmp')
  const hide = (p: string): void => {
    // A folder becomes an empty tmpfs, a file reads as empty.
    if (statSync(p).isDirectory()) a.push('--tmpfs', p)
    else a.push('--ro-bind', '/dev/null', p)
  }
  const { before, after } = orderedHides(plan)
  before.forEach(hide)
  for (const b of orderedBinds(plan)) a.push(b.writable ? '--bind' : '--ro-bind', b.path, b.path)
  after.forEach(hide)
  a.push(...setenv, '--chdir', plan.cwd, '--', ...argv)
  return a
}

/** SBPL string literal. */
const sb = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/**
 * The macOS profile (later rules win). macOS has no PID namespace: descendants that leave the process group (setsid)
 * can outlive the command there; the process group itself is killed as on Linux without bwrap.
 */
function seatbeltProfile(plan: Plan): string {
  const sub = (ps: string[]): string => ps.map((p) => `(subpath ${sb(p)})`).join(' ')
  const { before, after } = orderedHides(plan)
  const rules = ['(version 1)', '(allow default)', '(deny file-write*)']
  rules.push(
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))',
  )
  if (plan.privateTmp) rules.push('(deny file-read* (subpath "/private/tmp"))')
  if (before.length) rules.push(`(deny file-read* file-write* ${sub(before)})`)
  // The folders above a shown one are looked up (getcwd, realpath) but not listed or read.
  const ancestors = new Set<string>()
  for (const p of [...plan.writable, ...plan.readOnly])
    for (let d = path.dirname(p); d !== path.dirname(d); d = path.dirname(d)) ancestors.add(d)
  if (before.length && ancestors.size)
    rules.push(`(allow file-read-metadata ${[...ancestors].map((d) => `(literal ${sb(d)})`).join(' ')})`)
  for (const b of orderedBinds(plan))
    rules.push(
      b.writable
        ? `(allow file-read* file-write* ${sub([b.path])})`
        : `(allow file-read* ${sub([b.path])}) (deny file-write* ${sub([b.path])})`,
    )
  if (after.length) rules.push(`(deny file-read* file-write* ${sub(after)})`)
  if (!plan.network) rules.push('(deny network*)')
  return rules.join('\n')
}

// ---------------------------------------------------------------------------------------------------------------------
