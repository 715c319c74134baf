/**
 * Whether a member can run on a runner: Concord reaches it, git is there (the member's task tree lives where it runs)
 * and, for an agent member, the agent's command is on the runner's PATH. One small shell script answers all three
 * in one round trip; each failure is its own stable code, with a message that names the runner and what to install.
 */
import { spawn } from 'node:child_process'
import { ApiError } from '../../../../shared/errors'
import type { Runner, RunnerCheck } from '../../../../shared/runners'
import { runOnHost, type HostResult } from '../../platform/ssh'

/** Enough for a slow login; connecting has its own timeout (ssh's ConnectTimeout). */
const CHECK_TIMEOUT_MS = 30_000

const NO_GIT = 3
const NO_AGENT = 4

/** Prints git's version, then the agent's path when $1 names one; exits NO_GIT or NO_AGENT when one is missing. */
const SCRIPT = [
  `v=$(git --version 2>/dev/null) || exit ${NO_GIT}`,
  `printf '%s\\n' "$v"`,
  `[ -z "$1" ] || command -v "$1" || exit ${NO_AGENT}`,
].join('\n')

export interface CheckOptions {
  /** The folder of ssh's control sockets (platform/ssh.ts). */
  controlDir: string
  /** The environment ssh runs with; default Concord's own. */
  env?: NodeJS.ProcessEnv
}

/** An agent command as the runner's shell will look it up: a name or a path, never an option. */
function checkAgentCommand(command: string): void {
  if (command.length === 0 || command.length > 4096 || command.startsWith('-') || /[\0\n]/.test(command))
    throw new ApiError(
      'invalid_params',
      'An agent command is a program name or path, not empty and not starting with -',
    )
}

/** The script run here, for a member that runs on this machine. */
function runHere(argv: string[]): Promise<HostResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('error', (e) => reject(new ApiError('io_error', `sh could not be started: ${e.message}`)))
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut: false }))
  })
}

/** Checks the runner; answers what it found or throws runner_unreachable, runner_no_git or runner_no_agent. */
export async function checkRunner(
  runner: Runner,
  agentCommand: string | undefined,
  opts: CheckOptions,
): Promise<RunnerCheck> {
  if (agentCommand !== undefined) checkAgentCommand(agentCommand)
  const argv = ['sh', '-c', SCRIPT, 'sh', agentCommand ?? '']
  let where: string
  let r: HostResult
  switch (runner.kind) {
    case 'local':
      where = 'this machine'
      r = await runHere(argv)
      break
    case 'ssh':
      where = `the SSH host ${runner.host}`
      r = await runOnHost(runner.host, argv, { ...opts, timeoutMs: CHECK_TIMEOUT_MS })
      break
    case 'container':
      throw new ApiError('unsupported', 'Container runners are not checked yet')
  }
  if (r.timedOut)
    throw new ApiError('runner_unreachable', `${where} did not answer within ${CHECK_TIMEOUT_MS / 1000} s`, { runner })
  const lines = r.stdout.toString('utf8').split('\n')
  if (r.code === NO_GIT)
    throw new ApiError('runner_no_git', `There is no git on ${where}: install git there (apt install git)`, { runner })
  if (r.code === NO_AGENT)
    throw new ApiError(
      'runner_no_agent',
      `The agent command "${agentCommand}" is not found on ${where}: install it there, or give its full path`,
      { runner, command: agentCommand },
    )
  const git = /^git version (\S+)/.exec(lines[0] ?? '')?.[1]
  if (r.code !== 0 || !git)
    throw new ApiError('runner_unreachable', `${where} did not run the check: ${r.stderr.trim() || `exit ${r.code}`}`, {
      runner,
    })
  const agent = agentCommand ? lines[1]?.trim() : undefined
  return agent ? { ok: true, git, agent } : { ok: true, git }
}
