/**
 * A container runner: a long-lived container of a local image (Podman, else Docker) in which a member's agent and its
 * commands run. Concord starts it with `sleep infinity` under an init (`--init`, so that what the agent leaves
 * behind is reaped and a stop is not ignored by PID 1), execs into it for every process, and removes it with `rm -f`,
 * which ends everything that was started in it: a container leaves no orphans on the host.
 *
 * Concord never pulls: the image must be in the engine's store (built or imported by the user). Container names are
 * Concord's own (`concord-…`), so a cleanup can find what an earlier run left and never touches anyone else's.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { TRUSTED_PATH, trustedProgram } from './command-env'
import { spawnOffLoop } from './spawner'

export type ContainerEngineKind = 'podman' | 'docker'

export interface ContainerEngine {
  kind: ContainerEngineKind
  /** The engine's absolute path. */
  program: string
  /** Options before the subcommand (podman's runtime and cgroup manager). */
  globalArgs: string[]
  /** Options of `run` every container needs here (podman's ulimits). */
  runArgs: string[]
  /** The engine's environment: an allow-list (DOCKER_HOST and the like as the user set them), never all of ours. */
  env: Record<string, string>
}

export interface ContainerMount {
  /** An absolute path on the host (a folder, or a file such as a unix socket). */
  host: string
  /** An absolute path in the container. */
  target: string
  readOnly: boolean
}

export interface StartContainerOptions {
  engine: ContainerEngine
  image: string
  name: string
  mounts: ContainerMount[]
  /** Variables of the container, passed by name through the engine's environment (values never on a command line). */
  env?: Record<string, string>
  /** none: no network at all; host: the host's. */
  network: 'none' | 'host'
}

export interface ContainerRun {
  code: number
  stdout: Buffer
  stderr: string
}

/** The prefix of every container Concord starts. */
export const CONTAINER_PREFIX = 'concord-'

/** Lower case letters, digits, `_`, `.` and `-`, after Concord's own prefix: no option, path or other engine syntax. */
const NAME = /^concord-[a-z0-9_.-]{1,100}$/

/** Throws invalid_params unless `name` is one of Concord's container names. */
export function assertContainerName(name: string): void {
  if (!NAME.test(name))
    throw new ApiError(
      'invalid_params',
      `"${name}" is not a Concord container name: it must start with ${CONTAINER_PREFIX} and hold only a-z, 0-9, "_", "." and "-" (at most 100 after the prefix)`,
    )
}

/** Variables an engine reads to find its service, its storage and its configuration: passed through as set. */
const ENGINE_VARS = [
  'HOME',
  'USER',
  'LANG',
  'TMPDIR',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINER_CONNECTION',
  'CONTAINERS_CONF',
  'CONTAINERS_STORAGE_CONF',
  'CONTAINERS_REGISTRIES_CONF',
] as const

let found: ContainerEngine | null | undefined

/**
 * The container engine on this machine, found once: podman when installed (it needs no daemon), else docker (which
 * reaches its daemon through DOCKER_HOST or its context, as the user set them). runner_unreachable when neither is.
 */
export function containerEngine(): ContainerEngine {
  found ??= findEngine()
  if (!found)
    throw new ApiError(
      'runner_unreachable',
      'no container engine here: neither podman nor docker is installed (apt install podman, dnf install podman)',
    )
  return found
}

function findEngine(): ContainerEngine | null {
  const env: Record<string, string> = {}
  for (const name of ENGINE_VARS) {
    const v = process.env[name]
    if (v !== undefined) env[name] = v
  }
  // The engine finds its helpers (conmon, the OCI runtime, docker's plugins) on PATH: Concord's own absolute entries.
  const own = (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))
  env.PATH = [TRUSTED_PATH, ...own].join(path.delimiter)
  const podman = trustedProgram('podman')
  if (podman) return { kind: 'podman', program: podman, ...podmanOptions(), env }
  const docker = trustedProgram('docker')
  if (docker) return { kind: 'docker', program: docker, globalArgs: [], runArgs: [], env }
  return null
}

/**
 * Podman's options for a Linux host where it runs itself (elsewhere it is a client of a machine it manages, which
 * needs none of this). crun, podman's default runtime, refuses a host with hybrid cgroups (v1 controllers beside a v2
 * mount) where runc runs, so runc is chosen when installed; cgroupfs works without systemd, which a container or a
 * minimal host lacks. Podman as root asks the runtime for 1048576 open files and processes, which a host without
 * CAP_SYS_RESOURCE (itself a container) cannot grant: the container is refused ("error setting rlimits"). So both
 * limits are set to what this process may have: its hard limits, processes at most kernel.pid_max, to which podman
 * lowers its own (measured), and runc cannot give more than podman has.
 */
function podmanOptions(): { globalArgs: string[]; runArgs: string[] } {
  if (process.platform !== 'linux') return { globalArgs: [], runArgs: [] }
  const globalArgs = trustedProgram('runc') ? ['--runtime', 'runc'] : []
  globalArgs.push('--cgroup-manager=cgroupfs')
  const runArgs: string[] = []
  const files = hardLimit('Max open files')
  if (files !== null) runArgs.push('--ulimit', `nofile=${files}:${files}`)
  let processes = hardLimit('Max processes')
  const pidMax = readNumber('/proc/sys/kernel/pid_max')
  if (processes !== null && pidMax !== null) processes = Math.min(processes, pidMax)
  if (processes !== null) runArgs.push('--ulimit', `nproc=${processes}:${processes}`)
  return { globalArgs, runArgs }
}

/** This process's hard limit of one resource from /proc/self/limits; null when unlimited or unreadable. */
function hardLimit(label: string): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(label))
    const hard = line?.slice(label.length).trim().split(/\s+/)[1]
    return hard && /^\d+$/.test(hard) ? Number(hard) : null
  } catch {
    return null
  }
}

function readNumber(file: string): number | null {
  try {
    const text = readFileSync(file, 'utf8').trim()
    return /^\d+$/.test(text) ? Number(text) : null
  } catch {
    return null
  }
}

/** Runs the engine with `args` (after its global options); stdin is `input` when given. */
export function runEngine(
  engine: ContainerEngine,
  args: string[],
  opts: { input?: Uint8Array | string; env?: Record<string, string> } = {},
): Promise<ContainerRun> {
  return new Promise((resolve, reject) => {
    const child = spawnOffLoop(engine.program, [...engine.globalArgs, ...args], {
      env: { ...engine.env, ...opts.env },
      input: opts.input !== undefined,
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    let failed: NodeJS.ErrnoException | null = null
    child.on('error', (e) => (failed = e))
    child.on('close', (code) => {
      if (failed)
        reject(
          new ApiError(
            'runner_unreachable',
            `${engine.kind} could not be started (${engine.program}): ${failed.message}`,
          ),
        )
      else resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') })
    })
    if (opts.input !== undefined) {
      child.write(opts.input)
      child.endInput()
    }
  })
}

/** The engine's own failure, not that of the program run in the container. */
function engineFailed(engine: ContainerEngine, r: ContainerRun): boolean {
  // podman exits 125 for its own errors (126/127: the program cannot run or is not found); docker says who speaks.
  if (engine.kind === 'podman') return r.code === 125
  return (
    r.code !== 0 &&
    /^(Error response from daemon|Cannot connect to the Docker daemon|error during connect)/m.test(r.stderr)
  )
}

function unreachable(engine: ContainerEngine, what: string, r: ContainerRun): ApiError {
  return new ApiError(
    'runner_unreachable',
    `${engine.kind} could not ${what}: ${r.stderr.trim() || `exit ${r.code}`}`,
    {
      engine: engine.kind,
      stderr: r.stderr,
    },
  )
}

function assertMount(m: ContainerMount): void {
  for (const p of [m.host, m.target]) {
    // `--mount` is a comma-separated list of key=value: a comma or a control character would be read as syntax.
    if (!path.isAbsolute(p) || /[,\x00-\x1f]/.test(p))
      throw new ApiError('invalid_params', `a container mount needs absolute paths without commas: "${p}"`)
  }
}

/**
 * Starts container `name` of `image`, idle (`sleep infinity` under the engine's init) until processes are exec'd into
 * it. runner_no_image when the image is not in the engine's store, runner_unreachable when the engine cannot run it.
 */
export async function startContainer(opts: StartContainerOptions): Promise<string> {
  const { engine, image, name } = opts
  assertContainerName(name)
  if (!image || image.startsWith('-') || /[\s\x00-\x1f]/.test(image))
    throw new ApiError('invalid_params', `"${image}" is not an image name`)
  const args = ['run', '-d', '--name', name, `--network=${opts.network}`, '--init', '--pull=never', ...engine.runArgs]
  for (const m of opts.mounts) {
    assertMount(m)
    args.push('--mount', `type=bind,source=${m.host},target=${m.target}${m.readOnly ? ',readonly' : ''}`)
  }
  // A variable is named on the command line and its value given in the engine's environment, where no process list
  // shows it; one the engine reads itself (PATH, HOME) keeps the engine's value there and is given in full.
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
      throw new ApiError('invalid_params', `"${k}" is not an environment variable name`)
    if (k in engine.env) {
      args.push('-e', `${k}=${v}`)
    } else {
      args.push('-e', k)
      env[k] = v
    }
  }
  args.push(image, 'sleep', 'infinity')
  const r = await runEngine(engine, args, { env })
  if (r.code === 0) return name
  // Why it failed: the image is absent (nothing was pulled), or the engine itself cannot run containers.
  const inspect = await runEngine(engine, ['image', 'inspect', '--format', '{{.Id}}', image])
  if (inspect.code !== 0) {
    // `version` answers for the client and the service: it fails when the service (docker's daemon, a remote podman)
    // cannot be reached.
    const version = await runEngine(engine, ['version'])
    if (version.code === 0)
      throw new ApiError(
        'runner_no_image',
        `the image ${image} is not in ${engine.kind}'s store (Concord never pulls one)`,
        {
          image,
          stderr: r.stderr,
        },
      )
    throw unreachable(engine, 'be reached', version)
  }
  // The name is another container's (both engines say "already in use"): that one is not ours to remove.
  if (/already in use/i.test(r.stderr)) throw unreachable(engine, `start container ${name}`, r)
  // A container of that name may have been created before it failed to start: nothing of it is left behind.
  await removeContainer(engine, name)
  throw unreachable(engine, `start a container of ${image}`, r)
}

export interface ExecOptions {
  /** The folder in the container the program starts in. */
  workdir?: string
  /** stdin is piped (`-i`); else the program gets none. */
  interactive?: boolean
}

/**
 * The command line (program first) that runs `argv` in container `name`, with stdio piped, for a long-lived process
 * (an agent): spawn it with the engine's environment (engine.env).
 */
export function execArgs(engine: ContainerEngine, name: string, argv: string[], opts: ExecOptions = {}): string[] {
  return [engine.program, ...engine.globalArgs, ...execCommand(name, argv, opts)]
}

/** `exec` and its options, up to the program's own arguments. */
function execCommand(name: string, argv: string[], opts: ExecOptions): string[] {
  assertContainerName(name)
  if (argv.length === 0) throw new ApiError('invalid_params', 'nothing to run in the container (an empty command)')
  const args = ['exec']
  if (opts.interactive) args.push('-i')
  if (opts.workdir !== undefined) {
    if (!path.posix.isAbsolute(opts.workdir))
      throw new ApiError('invalid_params', `a container folder must be absolute: "${opts.workdir}"`)
    args.push('-w', opts.workdir)
  }
  // The name ends the engine's options; everything after it is the program's own.
  args.push(name, ...argv)
  return args
}

/**
 * Runs `argv` in container `name` to its end, with `input` as its stdin: its exit code, output bytes and error text.
 * runner_unreachable when the engine itself failed (no such container, the engine is down).
 */
export async function runInContainer(
  engine: ContainerEngine,
  name: string,
  argv: string[],
  opts: { input?: Uint8Array | string; workdir?: string } = {},
): Promise<ContainerRun> {
  const args = execCommand(name, argv, { workdir: opts.workdir, interactive: opts.input !== undefined })
  const r = await runEngine(engine, args, { input: opts.input })
  if (engineFailed(engine, r)) throw unreachable(engine, `run in container ${name}`, r)
  return r
}

/** Removes container `name` and everything running in it, at once; a container that is not there is no error. */
export async function removeContainer(engine: ContainerEngine, name: string): Promise<void> {
  assertContainerName(name)
  // No grace period (docker's rm -f kills at once; podman's would wait 10 s): what runs in it is thrown away with it.
  const r = await runEngine(engine, engine.kind === 'podman' ? ['rm', '-f', '--time', '0', name] : ['rm', '-f', name])
  if (r.code !== 0 && !/no such container/i.test(r.stderr)) throw unreachable(engine, `remove container ${name}`, r)
}

/** The names of Concord's containers that start with `prefix` (running or not), for a cleanup of what was left. */
export async function listConcordContainers(engine: ContainerEngine, prefix = CONTAINER_PREFIX): Promise<string[]> {
  if (!prefix.startsWith(CONTAINER_PREFIX) || !/^[a-z0-9_.-]+$/.test(prefix))
    throw new ApiError('invalid_params', `"${prefix}" is not a prefix of Concord's container names`)
  // The filter is a pattern to podman and a substring to docker (which sees names as "/name"): the prefix is checked here.
  const r = await runEngine(engine, ['ps', '-a', '--filter', `name=${prefix}`, '--format', '{{.Names}}'])
  if (r.code !== 0) throw unreachable(engine, 'list containers', r)
  return r.stdout
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((n) => n.startsWith(prefix))
}
