/**
 * The OS sandbox around run_command and git: bubblewrap on Linux, sandbox-exec on macOS.
 *
 * Both are called directly rather than through @anthropic-ai/sandbox-runtime (the alternative): no extra dependency,
 * and full control over the policy, which is small. Policy: the workspace (and the member's scratch HOME and TMPDIR)
 * writable, the rest of the file system read-only, a private /tmp, the data folder, the `hide` list and the user's
 * credential folders invisible, no network unless allowed, and (Linux) a PID namespace that dies with the command, so
 * nothing a command starts outlives it, the turn or Concord.
 *
 * When no sandbox is available a command still runs (own process group, allow-listed environment) and its result says
 * "not sandboxed". CONCORD_SANDBOX=off, read once at the first check, forces that.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { commandEnv, scratchPaths } from './command-env'
import type { ProcessInfo, SandboxPolicy } from './types'

export type SandboxKind = 'bwrap' | 'sandbox-exec'

export interface SandboxStatus {
  available: boolean
  kind: SandboxKind | null
  /** Why there is no sandbox, in words a person can act on. */
  reason?: string
}

/** Credential folders and files of the real home, hidden from every command. */
export const HOME_SECRETS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config/gcloud', '.config/gh', '.password-store', '.netrc', '.git-credentials', '.npmrc', '.pypirc']

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
    const r = await probe('bwrap', [...BWRAP_BASE, '--unshare-net', 'true'])
    if (r.missing) return { available: false, kind: null, reason: 'bubblewrap is not installed: install it (e.g. apt install bubblewrap)' }
    if (r.code !== 0) return { available: false, kind: null, reason: `bubblewrap cannot create a sandbox here: ${r.stderr || `exit code ${r.code}`}` }
    return { available: true, kind: 'bwrap' }
  }
  if (process.platform === 'darwin') {
    const r = await probe('/usr/bin/sandbox-exec', ['-p', '(version 1)(allow default)', '/usr/bin/true'])
    if (r.missing) return { available: false, kind: null, reason: 'sandbox-exec is not available on this Mac' }
    if (r.code !== 0) return { available: false, kind: null, reason: `sandbox-exec fails here: ${r.stderr || `exit code ${r.code}`}` }
    return { available: true, kind: 'sandbox-exec' }
  }
  return { available: false, kind: null, reason: `no sandbox is supported on ${process.platform}` }
}

function probe(file: string, args: string[]): Promise<{ code: number; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    child.on('error', (err: NodeJS.ErrnoException) => resolve({ code: -1, stderr: err.message, missing: err.code === 'ENOENT' }))
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
}

export interface SandboxedSpawn {
  file: string
  args: string[]
  env: Record<string, string>
  cwd: string
  sandboxed: boolean
  /** Why the command is not sandboxed. */
  reason?: string
}

/** How to spawn `argv` under the request's policy: inside the sandbox when there is one, else directly. */
export async function sandboxedSpawn(argv: [program: string, ...args: string[]], req: SandboxRequest): Promise<SandboxedSpawn> {
  const scratch = scratchPaths(req.policy)
  const env = req.env ?? commandEnv(req.policy, scratch)
  const st = await sandboxStatus()
  if (!st.available) return { file: argv[0], args: argv.slice(1), env, cwd: req.root, sandboxed: false, reason: st.reason }
  // A read-only checkout keeps the command's scratch writable: tests can still run, only the tree cannot change.
  const rootWritable = !req.readOnly && !req.policy?.readOnlyTree
  const plan: Plan = {
    cwd: req.root,
    writable: req.readOnly ? [] : uniqueReal([...(rootWritable ? [req.root] : []), scratch.home, scratch.tmp, ...(req.writable ?? [])]),
    readOnly: rootWritable ? [] : [req.root],
    hide: hiddenPaths(req.policy),
    network: !req.readOnly && req.policy?.network === true,
    privateTmp: !req.readOnly,
  }
  if (st.kind === 'bwrap') return { file: 'bwrap', args: bwrapArgs(plan, argv), env, cwd: req.root, sandboxed: true }
  return { file: '/usr/bin/sandbox-exec', args: ['-p', seatbeltProfile(plan), ...argv], env, cwd: req.root, sandboxed: true }
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
}

/**
 * How to spawn an external agent: the same mounts as run_command (private /tmp, the rest read-only, the data folder
 * and the user's credential folders hidden, a PID namespace), but with the network on, since the agent must reach its
 * model endpoint. Without a sandbox it runs directly and `reason` says why.
 */
export async function sandboxedAgentSpawn(argv: [program: string, ...args: string[]], env: Record<string, string>, req: AgentSandboxRequest): Promise<SandboxedSpawn> {
  const st = await sandboxStatus()
  if (!st.available) return { file: argv[0], args: argv.slice(1), env, cwd: req.root, sandboxed: false, reason: st.reason }
  // A fresh /tmp per process: measured with Gemini CLI 0.61, a temporary folder kept from a killed process makes the
  // next one wait at start.
  const tmp = st.kind === 'bwrap' ? '/tmp' : req.tmp
  const vars = { ...env, TMPDIR: tmp }
  const plan: Plan = {
    cwd: req.root,
    writable: uniqueReal([...(req.readOnly ? [] : [req.root]), ...req.writable, ...(st.kind === 'bwrap' ? [] : [tmp])]),
    readOnly: uniqueReal([...(req.readOnly ? [req.root] : []), ...(req.readable ?? []), ...programRoots(argv)]),
    hide: hiddenPaths({ dataDir: req.dataDir, hide: req.hide }),
    network: true,
    privateTmp: true,
  }
  if (st.kind === 'bwrap') return { file: 'bwrap', args: bwrapArgs(plan, argv), env: vars, cwd: req.root, sandboxed: true }
  return { file: '/usr/bin/sandbox-exec', args: ['-p', seatbeltProfile(plan), ...argv], env: vars, cwd: req.root, sandboxed: true }
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
    return realpathSync(path.resolve(p))
  } catch {
    return null
  }
}

function uniqueReal(paths: string[]): string[] {
  return [...new Set(paths.map(real).filter((p): p is string => p !== null))]
}

/** The data folder, the policy's hide list and the credential folders of the real home that exist. */
function hiddenPaths(policy: SandboxPolicy | undefined): string[] {
  const home = os.homedir()
  return uniqueReal([...(policy?.dataDir ? [policy.dataDir] : []), ...(policy?.hide ?? []), ...HOME_SECRETS.map((p) => path.join(home, p))])
}

const within = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/**
 * Mount order matters: a hidden path that contains the workspace (worktrees kept in the data folder) is hidden first
 * and the workspace bound on top; a hidden path inside the workspace is hidden after the workspace is bound.
 */
function orderedHides(plan: Plan): { before: string[]; after: string[] } {
  const exposed = [...plan.writable, ...plan.readOnly]
  const after = plan.hide.filter((h) => exposed.some((e) => h !== e && within(h, e)))
  return { before: plan.hide.filter((h) => !after.includes(h)), after }
}

function bwrapArgs(plan: Plan, argv: string[]): string[] {
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
  for (const p of plan.writable) a.push('--bind', p, p)
  for (const p of plan.readOnly) a.push('--ro-bind', p, p)
  after.forEach(hide)
  a.push('--chdir', plan.cwd, '--', ...argv)
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
  rules.push('(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))')
  if (plan.privateTmp) rules.push('(deny file-read* (subpath "/private/tmp"))')
  if (before.length) rules.push(`(deny file-read* file-write* ${sub(before)})`)
  if (plan.writable.length) rules.push(`(allow file-read* file-write* ${sub(plan.writable)})`)
  if (plan.readOnly.length) rules.push(`(allow file-read* ${sub(plan.readOnly)})`)
  if (after.length) rules.push(`(deny file-read* file-write* ${sub(after)})`)
  if (!plan.network) rules.push('(deny network*)')
  return rules.join('\n')
}

// ---------------------------------------------------------------------------------------------------------------------
// recognising a process after a crash

/**
 * When the process started, as recorded in onProcess: /proc/<pid>/stat field 22 (clock ticks since boot) on Linux,
 * `ps -o lstart=` elsewhere. Undefined when the process is gone. A reused pid has another start time.
 */
export function processStartTime(pid: number): string | undefined {
  if (process.platform === 'linux') return procStat(pid)?.startTime
  try {
    return execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

function procStat(pid: number | string): { zombie: boolean; pgrp: number; startTime: string } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may itself contain spaces and parentheses.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ')
    return { zombie: rest[0] === 'Z', pgrp: Number(rest[2]), startTime: rest[19] ?? '' }
  } catch {
    return undefined
  }
}

export type KillRecordedResult = 'killed' | 'gone' | 'different_process' | 'unverifiable'

/**
 * After a crash: SIGKILLs the process group Concord recorded for a command, only if it is still that command's. The
 * leader must have the recorded start time (a reused pid has another). If the leader is gone, members of the group
 * that started after it are still the command's: a pid cannot be reused while its process group exists. Without a
 * recorded start time nothing is killed.
 */
export function killRecordedGroup(pid: number, pgid: number, startTime?: string): KillRecordedResult {
  if (startTime === undefined) return 'unverifiable'
  if (process.platform === 'linux' && !/^\d+$/.test(startTime)) return 'unverifiable'
  const leader = process.platform === 'linux' ? procStat(pid) : undefined
  const now = process.platform === 'linux' ? leader?.startTime : processStartTime(pid)
  if (now !== undefined && now !== startTime) return 'different_process'
  if (now === undefined || leader?.zombie) {
    if (process.platform !== 'linux') return 'gone'
    const members = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((d) => procStat(d))
      .filter((s) => s !== undefined && !s.zombie && s.pgrp === pgid && BigInt(s.startTime) >= BigInt(startTime))
    if (members.length === 0) return 'gone'
  }
  try {
    process.kill(-pgid, 'SIGKILL')
    return 'killed'
  } catch {
    return 'gone'
  }
}

/**
 * Tells the runtime about a command process that just started in its own process group (pgid = pid), with its start
 * time; returns the function to call when it has ended. A no-op without onProcess.
 */
export function recordProcess(pid: number | undefined, onProcess: ((info: ProcessInfo) => () => void) | undefined): () => void {
  if (!onProcess || !pid) return () => {}
  let ended = false
  const end = onProcess({ pid, pgid: pid, startTime: processStartTime(pid) })
  return () => {
    if (ended) return
    ended = true
    end()
  }
}
