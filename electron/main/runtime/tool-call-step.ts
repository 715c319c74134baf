/**
 * One tool call of a built-in turn's step: its step row, its arguments checked, the approval policy asked (and the
 * human when it says so), then the tool run; whatever happens, the text the model reads back is returned.
 */
import { currentText } from './approval-current'
import { ApiError } from '../../../shared/errors'
import { makeId, now } from '../harness/ids'
import {
  describeToolCall,
  needsHuman,
  suggestedRule,
  type PolicyAnswer,
  type PolicyCall,
} from '../harness/members/approval-policy'
import type { TurnEnv } from './turn-env'
import type { MemberHost } from './member-host'
import type { ToolCall } from './providers/types'
import type { TurnSteps } from './step-writer'
import { parseArgs } from './tools/tool-helpers'
import { ToolError } from '../platform/tool-error'
import type { ToolDefinition } from './tools/types'
import type { HarnessToolContext } from './tools/harness-tools'

/** The call and the turn it runs in, as the parts of runToolCall share them. */
interface CallRun {
  env: TurnEnv
  host: MemberHost
  call: ToolCall
  steps: TurnSteps
  stepId: number
  signal: AbortSignal
  /** Why the step was stopped by a notice (interruptStep), if it was. */
  stoppedBy: () => string | null
  /** Ends the tool step as an error whose text is the message, and returns it. */
  fail: (message: string) => string
}

export async function runToolCall(
  env: TurnEnv,
  host: MemberHost,
  call: ToolCall,
  modelStepId: number,
  steps: TurnSteps,
  signal: AbortSignal,
  endTurn: (reason: string) => void,
  /** Why the step was stopped by a notice (interruptStep), if it was. */
  stoppedBy: () => string | null,
): Promise<string> {
  const { insert, finish } = steps
  const tool = env.tools.find((t) => t.name === call.name)
  const stepId: number = insert({
    kind: 'tool',
    status: 'running',
    tool_call_id: call.id,
    tool_name: call.name,
    tool_args: call.argumentsText,
  })
  const fail = (message: string) => {
    finish(stepId, { status: 'error', text: message, is_error: 1, ended_at: now() })
    return message
  }
  if (!tool)
    return fail(`error: unknown tool '${call.name}'. Available tools: ${env.tools.map((t) => t.name).join(', ')}`)
  const run: CallRun = { env, host, call, steps, stepId, signal, stoppedBy, fail }
  const parsed = toolArgs(run, tool)
  if (!parsed.ok) return parsed.text
  const refused = await approvalGate(run, tool, parsed.args)
  if (refused !== null) return refused
  return executeTool(run, tool, parsed.args, endTurn, modelStepId)
}

/** The call's arguments parsed and checked against the tool's schema, or the failed step's text. */
function toolArgs(
  { call, fail }: CallRun,
  tool: ToolDefinition<unknown, HarnessToolContext>,
): { ok: true; args: unknown } | { ok: false; text: string } {
  let raw: unknown
  try {
    raw = call.argumentsText.trim() ? JSON.parse(call.argumentsText) : {}
  } catch (err) {
    return {
      ok: false,
      text: fail(
        `error: the arguments are not valid JSON (${(err as Error).message}). Send the arguments of ${call.name} as one JSON object.`,
      ),
    }
  }
  try {
    return { ok: true, args: parseArgs(tool.args, raw, call.name) }
  } catch (err) {
    return { ok: false, text: fail(`error (invalid_arguments): ${(err as Error).message}`) }
  }
}

/** The approval policy (and the human when it asks): null when the call may run, else the text of its refusal. */
async function approvalGate(
  run: CallRun,
  tool: ToolDefinition<unknown, HarnessToolContext>,
  args: unknown,
): Promise<string | null> {
  const { env, call, steps, stepId } = run
  const needsApproval = typeof tool.needsApproval === 'function' ? tool.needsApproval(args) : tool.needsApproval
  const described = describeToolCall(call.name, args, needsApproval, { root: env.workspaceRoot, ...env.callSetting })
  const answer = needsHuman(
    env.approval,
    env.rules ?? [],
    described,
    env.sandbox ?? { available: false, reason: 'the sandbox was not checked' },
  )
  if (answer.deny) {
    const text = `error (denied_by_rule): this call was ${answer.why}; it did not run. Do not retry it unchanged.`
    steps.finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
    return text
  }
  if (!answer.ask) return null
  return askHuman(run, args, described, answer)
}

/** Waits for the human's answer to the call: null when allowed, else the text of the refusal or interruption. */
async function askHuman(
  { env, host, call, steps, stepId, signal, stoppedBy }: CallRun,
  args: unknown,
  described: PolicyCall,
  answer: PolicyAnswer,
): Promise<string | null> {
  steps.change(stepId, (s) => s.setStatus(stepId, 'waiting_approval'))
  const approvalId = makeId(env.ctx.wsId, 'step', stepId)
  const current =
    call.name === 'write_file' ? currentText(env.workspaceRoot, (args as { path?: unknown }).path) : undefined
  const allowed = await host.requestApproval(approvalId, stepId, call.name, call.argumentsText, {
    why: answer.why,
    suggestion: suggestedRule(described, answer),
    ...(current !== undefined ? { current } : {}),
  })
  if (!allowed) {
    const stopped = stoppedBy()
    const text = !signal.aborted
      ? `${host.denialText(approvalId)} (Do not retry it unchanged.)`
      : stopped
        ? `stopped: ${stopped} before this call was approved; it did not run. Call it again if it still applies to the current decisions.`
        : host.stopReason === 'shutdown'
          ? 'Concord was restarted before this call was approved; it did not run.'
          : 'The turn was interrupted before this call ran.'
    steps.finish(stepId, { status: signal.aborted ? 'interrupted' : 'denied', text, is_error: 1, ended_at: now() })
    return text
  }
  steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
  return null
}

/** Runs the tool and records its output, or the error the model reads back. */
async function executeTool(
  { env, host, steps, stepId, signal, stoppedBy, fail }: CallRun,
  tool: ToolDefinition<unknown, HarnessToolContext>,
  args: unknown,
  endTurn: (reason: string) => void,
  modelStepId: number,
): Promise<string> {
  try {
    const output = await tool.run(
      args,
      env.toolContext(host, signal, endTurn, makeId(env.ctx.wsId, 'step', modelStepId)),
    )
    steps.finish(stepId, { status: 'done', text: output, ended_at: now() })
    return output
  } catch (err) {
    const stopped = stoppedBy()
    if (stopped && err instanceof ToolError && err.code === 'aborted') {
      const text = `stopped: ${stopped}. ${err.message}`
      steps.finish(stepId, { status: 'interrupted', text, is_error: 1, ended_at: now() })
      return text
    }
    if (err instanceof ToolError || err instanceof ApiError) return fail(`error (${err.code}): ${err.message}`)
    const e = err as { code?: string; message?: string }
    return fail(`error${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`)
  }
}
