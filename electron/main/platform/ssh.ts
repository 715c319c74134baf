/**
 * Running programs on an SSH host with the system's OpenSSH client: the user's own ~/.ssh/config, keys and agent say
 * how a host is reached, Concord adds only what makes a call fit to be run unattended (no prompt, a connect timeout,
 * keep-alives) and one connection shared by the calls to a host (ssh's ControlMaster, its socket in a folder the
 * caller gives).
 *
 * A host is what the user names in a runner: an alias of their ssh config or user@host[:port]. It is checked before
 * it reaches ssh's command line, where a leading '-' would be read as an option (`-oProxyCommand=...` runs a program
 * here).
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { MAX_SSH_HOST_LENGTH, SSH_HOST_PATTERN } from '../../../shared/runners'
import { trustedProgram } from './command-env'

/** What the environment passes to ssh: where it finds its config and keys (HOME) and the user's agent. */
const SSH_ENV = ['HOME', 'USER', 'LOGNAME', 'SSH_AUTH_SOCK', 'LANG', 'LC_ALL'] as const

/**
 * A Unix socket's path is at most 107 bytes. ssh binds its control socket at `<ControlPath>.<16 random characters>`
 * first and renames it, and %C is 40 hexadecimal characters: a folder longer than this leaves no room, and ssh
 * refuses to run at all ("ControlPath too long"): with such a folder each call has a connection of its own.
 */
const MAX_CONTROL_DIR = 107 - 1 - 40 - 17

/** Written to stderr by the remote shell before the command starts: its absence means ssh itself failed. */
const STARTED = 'concord-ssh-started'
/** How long killing a command that ran past its timeout may take on the host. */
const KILL_TIMEOUT_MS = 10_000

export interface SshOptions {
  /** The folder of the control sockets (made 0700 when missing); one per Concord data folder. */
  controlDir: string
  /** The environment ssh is run with (HOME finds ~/.ssh/config); default Concord's own. */
  env?: NodeJS.ProcessEnv
  /**
   * A connection of its own, not the shared one: a long-lived process whose end is its connection's end (an agent),
   * with a Unix socket on the host forwarded to one here (`-R`, the stale socket file replaced, ssh ending when the
   * forward cannot be made).
   */
  own?: { forward?: { remote: string; local: string } }
}

/**
 * The folder of ssh's control sockets for a data folder: `<dataDir>/ssh` when its sockets' paths fit, else a folder
 * of /tmp named for the data folder (not os.tmpdir(): macOS's is 49 characters alone), which must be this user's own
 * and private: in a shared /tmp another user could have made it first, and a socket in it would hand them the
 * connection.
 */
export function sshControlDir(dataDir: string): string {
  const own = join(dataDir, 'ssh')
  if (own.length <= MAX_CONTROL_DIR) return own
  const id = createHash('sha256').update(dataDir).digest('hex').slice(0, 12)
  const short = join('/tmp', `concord-ssh-${process.getuid?.() ?? 0}-${id}`)
  mkdirSync(short, { recursive: true, mode: 0o700 })
  const st = lstatSync(short)
  if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0)
    throw new ApiError(
      'io_error',
      `${short} is not a private folder of this user: remove it, or use a shorter data folder`,
    )
  return short
}

export interface SshCommand {
  file: string
  args: string[]
  env: Record<string, string>
}

/** The home of this process's user as the system's user database has it, which is where ssh looks. */
function passwdHome(): string | null {
  try {
    return userInfo().homedir
  } catch {
    return null
  }
}

/** The host, checked: no leading '-', only the characters of names, users, addresses and ports; else invalid_params. */
export function checkHost(host: string): string {
  if (host.length > MAX_SSH_HOST_LENGTH || !SSH_HOST_PATTERN.test(host))
    throw new ApiError(
      'invalid_params',
      `"${host.slice(0, 80)}" is not an SSH host: a name from your ssh config or user@host, of letters, digits and . _ - @ : [ ] (not starting with -), at most ${MAX_SSH_HOST_LENGTH} characters`,
      { host: host.slice(0, MAX_SSH_HOST_LENGTH) },
    )
  return host
}

/** One string for the remote POSIX shell that runs `argv` as is: each argument single-quoted. */
export function quoteForShell(argv: readonly string[]): string {
  if (argv.length === 0) throw new ApiError('invalid_params', 'No command to run on the host')
  return argv
    .map((arg) => {
      if (arg.includes('\0')) throw new ApiError('invalid_params', 'An argument of a command holds a NUL character')
      return `'${arg.replace(/'/g, `'\\''`)}'`
    })
    .join(' ')
}

/**
 * ssh's arguments up to the host: `ssh <these> <command>` runs the command there with its stdio piped. ssh takes the
 * first value it is given for an option, the command line's before the config files': these few override the user's
 * config for the host, and everything else (user, port, keys, proxies) is theirs.
 */
export function sshArgs(host: string, opts: SshOptions): string[] {
  checkHost(host)
  const env = opts.env ?? process.env
  const args: string[] = []
  // OpenSSH reads ~/.ssh/config from the home of the passwd entry, not from $HOME: a HOME set for Concord (a service
  // account, the tests' client side) would be ignored without -F. -F also means /etc/ssh/ssh_config is not read, so it
  // is given only where it changes which user config is read: HOME is not the passwd home and has a config.
  const config = env.HOME && env.HOME !== passwdHome() ? join(env.HOME, '.ssh', 'config') : null
  if (config && existsSync(config)) args.push('-F', config)
  const option = (o: string) => args.push('-o', o)
  option('BatchMode=yes')
  option('ConnectTimeout=10')
  option('ServerAliveInterval=15')
  option('ServerAliveCountMax=3')
  if (opts.own) {
    option('ControlMaster=no')
    option('ControlPath=none')
    const f = opts.own.forward
    if (f) {
      option('ExitOnForwardFailure=yes')
      option('StreamLocalBindUnlink=yes')
      args.push('-R', `${f.remote}:${f.local}`)
    }
  } else if (opts.controlDir.length <= MAX_CONTROL_DIR) {
    mkdirSync(opts.controlDir, { recursive: true, mode: 0o700 })
    option('ControlMaster=auto')
    option(`ControlPath=${join(opts.controlDir, '%C')}`)
    option('ControlPersist=60')
  }
  args.push('-T', '--', host)
  return args
}

/** The whole command that runs `argv` on the host: ssh, its arguments and its environment. */
export function sshCommand(host: string, argv: readonly string[], opts: SshOptions): SshCommand {
  const file = trustedProgram('ssh')
  if (!file) throw new ApiError('unsupported', 'There is no ssh here: install OpenSSH (apt install openssh-client)')
  const from = opts.env ?? process.env
  const env: Record<string, string> = { PATH: from.PATH ?? '/usr/bin:/bin' }
  for (const name of SSH_ENV) {
    const value = from[name]
    if (value !== undefined) env[name] = value
  }
  return { file, args: [...sshArgs(host, opts), quoteForShell(argv)], env }
}

export interface HostResult {
  /** The command's exit code; null when it was stopped at the timeout. */
  code: number | null
  stdout: Buffer
  stderr: string
  timedOut: boolean
}

export interface RunOnHostOptions extends SshOptions {
  input?: Buffer | string
  timeoutMs: number
}

/** ssh's own words when it failed: the last line it wrote, without ssh's `\r`. */
function lastLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
  return lines.at(-1) ?? 'ssh failed and said nothing'
}

/** The marker's line in what ssh wrote to stderr: where it is, and the command's pid and its parent's on the host. */
function findStarted(stderr: string): { at: number; length: number; pids: [string, string] } | null {
  const m = new RegExp(`${STARTED} (\\d+) (\\d+)\n`).exec(stderr)
  return m ? { at: m.index, length: m[0].length, pids: [m[1] as string, m[2] as string] } : null
}

/**
 * Kills a command that ran past its timeout, and what it started, on the host: sshd starts a session's command as the
 * leader of a process group of its own, the login shell, which either execs the command (its pid is the group's) or
 * runs it as its child (its parent's is: measured with dash, whose shell and command die with the connection while
 * what they started in the background lives on in their group). Trying the command's own group first is safe: when
 * it leads its group its parent is sshd's process for the session, which leads none. Killing ssh here does not kill
 * the command: without a terminal, sshd signals nothing. Best effort: a host that no longer answers has nothing of
 * this call's left that Concord could reach.
 */
async function killOnHost(host: string, [pid, parent]: [string, string], opts: SshOptions): Promise<void> {
  // No `--`: dash's kill reads it as a pid. A negative number after the signal is a group in dash, bash and zsh.
  const kill = 'kill -KILL "-$1" 2>/dev/null || kill -KILL "-$2" 2>/dev/null || kill -KILL "$1" 2>/dev/null'
  await runOnce(host, ['sh', '-c', kill, 'sh', pid, parent], { ...opts, timeoutMs: KILL_TIMEOUT_MS }).catch(() => {})
}

/** One run of `argv` on the host (see runOnHost); `pids`: the command's on the host, when it ran past the timeout. */
function runOnce(
  host: string,
  argv: readonly string[],
  opts: RunOnHostOptions,
): Promise<HostResult & { pids?: [string, string] }> {
  // The remote shell says the command starts, with its pid and its parent's (on stderr, which has no bytes of the
  // command's yet), then becomes it.
  const started = `printf '%s %s %s\\n' ${STARTED} "$$" "$PPID" >&2 && exec "$@"`
  const command = sshCommand(host, ['sh', '-c', started, 'sh', ...argv], opts)
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, { env: command.env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, opts.timeoutMs)
    // With a shared connection ssh hands its stdio to the connection's master process, which holds the pipes until the
    // command ends on the host: a call stopped at its timeout ends when its ssh exits, its pipes closed from here.
    child.once('exit', () => {
      if (!timedOut) return
      child.stdout.destroy()
      child.stderr.destroy()
      child.stdin.destroy()
      let stderr = Buffer.concat(err).toString('utf8')
      const mark = findStarted(stderr)
      if (mark) stderr = stderr.slice(0, mark.at) + stderr.slice(mark.at + mark.length)
      resolve({ code: null, stdout: Buffer.concat(out), stderr, timedOut, pids: mark?.pids })
    })
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    // The command may exit without reading all of its input: that is its answer, not an error of this call.
    child.stdin.on('error', () => {})
    child.stdin.end(opts.input ?? '')
    child.once('error', (e) => {
      clearTimeout(timer)
      reject(new ApiError('io_error', `ssh could not be started: ${e.message}`))
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      if (timedOut) return
      const all = Buffer.concat(err).toString('utf8')
      const mark = findStarted(all)
      if (!mark) {
        reject(
          new ApiError('runner_unreachable', `The SSH host ${host} could not be reached: ${lastLine(all)}`, {
            host,
            stderr: all.slice(-2000),
          }),
        )
        return
      }
      // What ssh said before the command started (a banner, a warning) stays; only the marker's line goes.
      const stderr = all.slice(0, mark.at) + all.slice(mark.at + mark.length)
      resolve({ code, stdout: Buffer.concat(out), stderr, timedOut: false })
    })
  })
}

/**
 * Runs `argv` on the host with `input` on its stdin. ssh's own failure (it could not connect, log in, or start the
 * command) throws runner_unreachable naming the host and ssh's last line of stderr; whatever the command did,
 * including exit 255, is its result. A command still running at `timeoutMs` is killed on the host, and the result
 * says timedOut. node's spawn, not spawnOffLoop: stdin and stdout are bytes, which the helper's messages carry only
 * as text.
 */
export async function runOnHost(host: string, argv: readonly string[], opts: RunOnHostOptions): Promise<HostResult> {
  const { pids, ...result } = await runOnce(host, argv, opts)
  if (pids) await killOnHost(host, pids, opts)
  return result
}
