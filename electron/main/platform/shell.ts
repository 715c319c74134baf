/**
 * A shell command's process, for run_command and the commands Concord runs in a task's tree for the user (setup and
 * run commands): spawned as planned by sandboxedSpawn, in its own process group, its output kept head and tail, and
 * its whole tree killed on stop (bubblewrap's inner session included).
 */
import { readFileSync } from 'node:fs'
import { type SandboxedSpawn } from './sandbox/spawn'
import { processStartTime, recordProcess } from './process-records'
import type { ProcessHook } from './sandbox-policy'
import { spawnOffLoop } from './spawner'
import { ToolError } from './tool-error'

/** Output kept of a command (first and last halves), as run_command has always kept. */
export const COMMAND_OUTPUT_CAP = 64 * 1024
/** SIGTERM, then SIGKILL after this long. */
export const KILL_GRACE_MS = 500

/** Collects output up to `cap` bytes, keeping the head and the tail. */
class HeadTailBuffer {
  private head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  total = 0
  constructor(private readonly half: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length
    if (this.headBytes < this.half) {
      const take = Math.min(chunk.length, this.half - this.headBytes)
      this.head.push(chunk.subarray(0, take))
      this.headBytes += take
      chunk = chunk.subarray(take)
      if (chunk.length === 0) return
    }
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    while (this.tailBytes > this.half) {
      const excess = this.tailBytes - this.half
      const first = this.tail[0]
      if (!first) break // tailBytes counts the bytes in tail: not reached
      if (first.length <= excess) {
        this.tail.shift()
        this.tailBytes -= first.length
      } else {
        this.tail[0] = first.subarray(excess)
        this.tailBytes -= excess
      }
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8')
    const tail = Buffer.concat(this.tail).toString('utf8')
    const omitted = this.total - this.headBytes - this.tailBytes
    if (omitted <= 0) return head + tail
    return `${head}\n[... ${omitted} bytes of output omitted ...]\n${tail}`
  }
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(-pid, sig)
  } catch {
    // already gone
  }
}

/**
 * The process groups of a process's children, with their start times (so a late kill never hits a reused pid).
 * bubblewrap runs the command under a child of its own, in a session of its own (--new-session), as the init of its
 * pid namespace: that group is not the one spawned. The child dies with its parent (--die-with-parent), except when
 * the parent is killed while it is still starting it: measured, a stop within milliseconds of the start left the
 * command running for good. Linux only (elsewhere the command's processes are in the spawned group).
 */
function childGroups(pid: number | undefined): { pid: number; start: string | undefined }[] {
  if (!pid || process.platform !== 'linux') return []
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((c) => ({ pid: Number(c), start: processStartTime(Number(c)) }))
  } catch {
    return [] // already gone
  }
}

function sendSignal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}

export interface CommandResult {
  output: string
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
}

export interface ShellOptions {
  timeoutMs: number
  signal: AbortSignal
  onProcess?: ProcessHook
  /** Each chunk of output as it comes (stdout and stderr interleaved). */
  onOutput?: (chunk: string) => void
  /** Bytes of output kept (head and tail halves); default COMMAND_OUTPUT_CAP. */
  cap?: number
}

/**
 * Kills a spawned process's group and the groups its children made: SIGTERM first (terminate), SIGKILL after
 * KILL_GRACE_MS or at once (killAll). Every signal reads the children again (the process frozen meanwhile, so it
 * starts none while they are read) and signals each by its group and by its pid: a child caught between its start
 * and its setsid is in neither group alone, and a stop that comes before the process's pid is known (its 'spawn'
 * event late under load) still finds them. Measured before: one stop in ten within 20 ms of the start left the
 * sandbox's init and the command running for good.
 */
function groupKiller(child: { pid?: number | undefined }) {
  let killTimer: NodeJS.Timeout | undefined
  let exited = false
  const inner = new Map<number, string | undefined>()
  const killAll = (sig: NodeJS.Signals): void => {
    const live = !exited
    if (live) sendSignal(child.pid, 'SIGSTOP')
    if (live) for (const c of childGroups(child.pid)) if (!inner.has(c.pid)) inner.set(c.pid, c.start)
    killGroup(child.pid, sig)
    for (const [pid, start] of inner) {
      if (start !== undefined && processStartTime(pid) !== start) continue // gone, its pid maybe reused
      killGroup(pid, sig)
      sendSignal(pid, sig)
    }
    if (live) sendSignal(child.pid, 'SIGCONT')
  }
  const terminate = (): void => {
    if (killTimer) return
    killAll('SIGTERM')
    killTimer = setTimeout(() => killAll('SIGKILL'), KILL_GRACE_MS)
  }
  return { killAll, terminate, cancel: () => clearTimeout(killTimer), exited: () => void (exited = true) }
}

/**
 * Runs a planned spawn (sandboxedSpawn) in a process group of its own, collecting its output up to a cap, and kills
 * the whole tree of it on timeout, abort, or when it ends (background processes do not outlive it).
 */
export function runShell(plan: SandboxedSpawn, opts: ShellOptions): Promise<CommandResult> {
  const { signal, timeoutMs } = opts
  return new Promise((resolve, reject) => {
    const buf = new HeadTailBuffer((opts.cap ?? COMMAND_OUTPUT_CAP) / 2)
    // Off the event loop (spawner.ts); own process group, so the whole tree can be killed.
    const child = spawnOffLoop(plan.file, plan.args, { cwd: plan.cwd, detached: true, env: plan.env })
    let ended = (): void => {}
    let timedOut = false
    let aborted = false
    let exitCode: number | null = null
    let exitSignal: NodeJS.Signals | null = null
    let settled = false
    let drainTimer: NodeJS.Timeout | undefined
    const { killAll, terminate, cancel, exited } = groupKiller(child)
    const timer = setTimeout(() => {
      timedOut = true
      terminate()
    }, timeoutMs)
    const onAbort = (): void => {
      aborted = true
      terminate()
    }
    signal.addEventListener('abort', onAbort, { once: true })

    const finish = (): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(drainTimer)
      signal.removeEventListener('abort', onAbort)
      // Background processes left in the group do not outlive the command.
      killAll('SIGKILL')
      ended()
      cancel()
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({ output: buf.toString(), exitCode, signal: exitSignal, timedOut, aborted })
    }

    const take = (c: Buffer): void => {
      buf.push(c)
      opts.onOutput?.(c.toString('utf8'))
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('error', (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      cancel()
      signal.removeEventListener('abort', onAbort)
      ended()
      reject(new ToolError('command_failed', `Could not start the command: ${err.message}`))
    })
    child.on('spawn', () => {
      ended = recordProcess(child.pid, opts.onProcess)
      // Stopped before its pid was known: nothing of it has to be spared.
      if (aborted || timedOut) killAll('SIGKILL')
    })
    child.on('exit', (code, sig) => {
      exited()
      exitCode = code
      exitSignal = sig
      // If a background process still holds the pipes open, stop waiting for them shortly.
      drainTimer = setTimeout(finish, 200)
    })
    child.on('close', finish)
    if (signal.aborted) onAbort()
  })
}
