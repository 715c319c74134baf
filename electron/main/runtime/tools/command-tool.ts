/**
 * run_command: a shell command in the workspace, inside the OS sandbox (platform/sandbox/) with the allow-listed environment
 * (command-env.ts), with a timeout, an output cap and its whole process group killed on stop.
 */
import { z } from 'zod'
import { sandboxedSpawn } from '../../platform/sandbox/spawn'
import { runShell } from '../../platform/shell'
import { COMMAND_OUTPUT_CAP, DEFAULT_COMMAND_TIMEOUT_MS, MAX_COMMAND_TIMEOUT_MS, checkAborted } from './tool-helpers'
import { defineTool } from './tool-schema'
import { ToolError } from '../../platform/tool-error'
import type { ToolDefinition } from './types'
import { workspaceRealRoot } from './workspace-path'

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
    const r = await runShell(plan, { timeoutMs, signal: ctx.signal, onProcess: ctx.onProcess })
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
