/**
 * run_command: a shell command in the workspace, inside the OS sandbox (sandbox.ts) with the allow-listed environment
 * (command-env.ts), with a timeout, an output cap and its whole process group killed on stop.
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { processStartTime, recordProcess, sandboxedSpawn, type SandboxedSpawn } from '../../platform/sandbox'
import {
  COMMAND_OUTPUT_CAP,
  DEFAULT_COMMAND_TIMEOUT_MS,
  MAX_COMMAND_TIMEOUT_MS,
  KILL_GRACE_MS,
  checkAborted,
} from './tool-helpers'
import { defineTool } from './tool-schema'
import { ToolError } from '../../platform/tool-error'
import type { ToolContext, ToolDefinition } from './types'
import { workspaceRealRoot } from './workspace-path'
import { spawnOffLoop } from '../../platform/spawner'

// ---------------------------------------------------------------------------------------------------------------------
// run_command

const runCommandArgs = z.object({
  command: z.string().min(1).describe('Shell command line.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_COMMAND_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`),
})
type RunCommandArgs = z.infer<typeof runCommandArgs>

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

interface CommandResult {
  output: string
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
}

function runShell(plan: SandboxedSpawn, timeoutMs: number, ctx: ToolContext): Promise<CommandResult> {
  const signal = ctx.signal
  return new Promise((resolve, reject) => {
    const buf = new HeadTailBuffer(COMMAND_OUTPUT_CAP / 2)
    // Off the event loop (platform/spawner.ts); own process group, so the whole tree can be killed.
    const child = spawnOffLoop(plan.file, plan.args, { cwd: plan.cwd, detached: true, env: plan.env })
    let ended = (): void => {}
    let timedOut = false
    let aborted = false
    let exitCode: number | null = null
    let exitSignal: NodeJS.Signals | null = null
    let settled = false
    let killTimer: NodeJS.Timeout | undefined
    let drainTimer: NodeJS.Timeout | undefined
    let inner: ReturnType<typeof childGroups> = []
    const killAll = (sig: NodeJS.Signals): void => {
      killGroup(child.pid, sig)
      for (const c of inner) if (c.start === undefined || processStartTime(c.pid) === c.start) killGroup(c.pid, sig)
    }

    const terminate = (): void => {
      if (killTimer) return
      // Frozen first, the spawned process starts no child while its children are read; SIGTERM waits for the SIGCONT.
      sendSignal(child.pid, 'SIGSTOP')
      inner = childGroups(child.pid)
      killAll('SIGTERM')
      sendSignal(child.pid, 'SIGCONT')
      killTimer = setTimeout(() => killAll('SIGKILL'), KILL_GRACE_MS)
    }
    const timer = setTimeout(() => {
      timedOut = true
      terminate()
    }, timeoutMs)
    const onAbort = (): void => {
      aborted = true
      terminate()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    child.on('spawn', () => {
      ended = recordProcess(child.pid, ctx.onProcess)
      // Stopped before its pid was known: nothing of it has to be spared.
      if (aborted || timedOut) killAll('SIGKILL')
    })

    const finish = (): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(drainTimer)
      signal.removeEventListener('abort', onAbort)
      // Background processes left in the group do not outlive the command.
      killAll('SIGKILL')
      ended()
      clearTimeout(killTimer)
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({ output: buf.toString(), exitCode, signal: exitSignal, timedOut, aborted })
    }

    child.stdout.on('data', (c: Buffer) => buf.push(c))
    child.stderr.on('data', (c: Buffer) => buf.push(c))
    child.on('error', (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(killTimer)
      signal.removeEventListener('abort', onAbort)
      ended()
      reject(new ToolError('command_failed', `Could not start the command: ${err.message}`))
    })
    child.on('exit', (code, sig) => {
      exitCode = code
      exitSignal = sig
      // If a background process still holds the pipes open, stop waiting for them shortly.
      drainTimer = setTimeout(finish, 200)
    })
    child.on('close', finish)
    if (signal.aborted) onAbort()
  })
}

export const runCommandTool: ToolDefinition<RunCommandArgs> = defineTool({
  name: 'run_command',
  description:
    'Run a shell command (via /bin/sh -c) with the workspace root as the working directory. Returns stdout and ' +
    `stderr interleaved (long output keeps the first and last ${COMMAND_OUTPUT_CAP / 2048} KB) and the exit code. ` +
    `Default timeout ${DEFAULT_COMMAND_TIMEOUT_MS / 1000}s, max ${MAX_COMMAND_TIMEOUT_MS / 60000} min; on timeout ` +
    'the whole process group is killed. Background processes do not survive the command. No stdin. In the OS ' +
    'sandbox only the workspace, $HOME and $TMPDIR are writable and there is no network unless the member is allowed it.',
  args: runCommandArgs,
  needsApproval: true,
  async run(args, ctx) {
    checkAborted(ctx.signal)
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const timeoutMs = args.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
    const plan = await sandboxedSpawn(['/bin/sh', '-c', args.command], { root, policy: ctx.sandbox })
    checkAborted(ctx.signal)
    const r = await runShell(plan, timeoutMs, ctx)
    const body = r.output.length > 0 ? (r.output.endsWith('\n') ? r.output : `${r.output}\n`) : ''
    if (r.aborted) {
      throw new ToolError('aborted', `Command interrupted; its process group was killed.\n${body}`.trimEnd())
    }
    let status: string
    if (r.timedOut) status = `[timed out after ${timeoutMs} ms; process group killed]`
    else if (r.exitCode !== null) status = `[exit code: ${r.exitCode}]`
    else status = `[killed by signal ${r.signal ?? 'unknown'}]`
    if (!plan.sandboxed)
      status += `\n[not sandboxed: ${plan.reason ?? 'no sandbox available'}; the command ran with the allow-listed environment only]`
    return `${body}${status}`
  },
})
