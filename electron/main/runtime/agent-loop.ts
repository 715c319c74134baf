/**
 * One turn of a member: build the view → call the model (streaming) → run the tool calls it asked for
 * (in parallel) → record each step → repeat, until it answers, reports, asks the human, hits maxSteps
 * or is interrupted. The model proposes; the runtime validates and executes (DESIGN §3).
 */
import { currentText } from './approval-current'
import { ApiError } from '../../../shared/errors'
import type { SessionErrorCode } from '../../../shared/session-errors'
import type { Ctx } from '../harness/context'
import { makeId, makeKey, now } from '../harness/ids'
import type { MemberRow, StepRow } from '../harness/rows'
import { TEXT_FLUSH_MS } from '../harness/members/steps'
import { turnSteps, type StepSink, type TurnSteps } from './step-writer'
import { buildBrief } from './brief'
import {
  describeToolCall,
  needsHuman,
  suggestedRule,
  type CallSetting,
  type PolicyRule,
  type SandboxState,
} from '../harness/members/approval-policy'
import { buildView, defaultViewOptions } from './context-view'
import { loopTurn } from './loop-share'
import type { MemberHost, TurnOutcome } from './member-host'
import { ProviderError, type ModelProvider, type ModelResult, type ToolCall } from './providers/types'
import type { HarnessToolContext } from './tools/harness-tools'
import { turnTask } from './turn-task'
import { parseArgs } from './tools/tool-helpers'
import { ToolError } from '../platform/tool-error'
import type { ToolDefinition } from './tools/types'

/** Steps read from the store to build one view (the budget then trims it). */
const VIEW_LOOKBACK = 400

/**
 * The step running now (a model call and the tool calls it asked for), per member: "Interrupt and re-prompt" stops
 * it without ending the turn (interruptStep), so the loop's next model request carries the notice at once.
 */
interface RunningStep {
  controller: AbortController
  /** Why it was stopped ("D-3 changed"), once it was. */
  reason: string | null
}
const runningSteps = new WeakMap<MemberHost, RunningStep>()

/**
 * "Interrupt and re-prompt" for Concord's own loop: stops the member's running step, its model stream and its
 * commands (their process groups killed), withdraws its calls waiting for approval, and lets the turn go on: the next
 * model request is made at once, with the brief (rebuilt for every call) carrying the notice. False when no step runs.
 */
export function interruptStep(host: MemberHost, reason: string): boolean {
  const step = runningSteps.get(host)
  if (!host.abort || !step || step.controller.signal.aborted) return false
  step.reason = reason
  step.controller.abort()
  for (const a of host.approvals.values()) a.resolve(false)
  return true
}

/** interruptStep for a notice of a change to the decision with this row number. */
export function interruptForNotice(host: MemberHost, decisionRowId: number): boolean {
  return interruptStep(host, `${makeKey('decision', decisionRowId)} changed`)
}

export interface TurnEnv {
  ctx: Ctx
  member: MemberRow
  provider: ModelProvider
  tools: ToolDefinition<unknown, HarnessToolContext>[]
  toolContext(
    host: MemberHost,
    signal: AbortSignal,
    endTurn: (reason: string) => void,
    sourceStepId: string,
  ): HarnessToolContext
  emitStep: StepSink
  emitDelta(stepId: number, text: string): void
  workspaceRoot: string
  /** Which tree the turn is in, in words for the member ("T-3's worktree, branch … at …"). */
  treeDescription?: string
  /** The policy this turn runs under: the member's, or stricter when the message came from a stricter turn. */
  approval: MemberRow['approval']
  /** The member's approval rules and the team's (approval-policy.ts reads them). */
  rules?: PolicyRule[]
  /** Whether the OS sandbox holds here (`sandboxed` asks for everything without it). */
  sandbox?: SandboxState
  /** What the policy needs to know of this turn's calls: its tree, network, hooks. */
  callSetting?: CallSetting
}

export function systemPrompt(member: MemberRow, workspaceRoot: string, tree?: string): string {
  return [
    `You are ${member.name}, the ${member.role} of a small software team coordinated by Concord, working in the repository at ${workspaceRoot}.` +
      (tree ? ` This turn you are in ${tree}.` : ''),
    member.instructions.trim(),
    'How to work: the brief below is rebuilt from the harness before every call and is the current truth — when it disagrees with anything said earlier in this conversation, the brief wins. ' +
      'When one of your tasks is flagged, adjust your work to the current decisions and call acknowledge_task. ' +
      'When you have checked work, call submit_report with each claim you verified and the decisions it exercises. ' +
      'Act through the tools; when you are done, answer in plain text.',
  ]
    .filter(Boolean)
    .join('\n\n')
}

export async function runTurn(env: TurnEnv, host: MemberHost, start: StepRow): Promise<TurnOutcome> {
  try {
    return await loop(env, host, start)
  } finally {
    runningSteps.delete(host)
  }
}

async function loop(env: TurnEnv, host: MemberHost, start: StepRow): Promise<TurnOutcome> {
  const { store } = env.ctx
  const member = env.member
  const signal = host.abort!.signal
  const taskId = turnTask(env.ctx, member, start)
  const ws = env.ctx.wsId
  const steps = turnSteps(store, env.emitStep, { memberRowId: member.id, turnId: start.id, taskId })
  const { insert } = steps
  const interrupted = (): TurnOutcome => {
    insert({ kind: 'interrupted', status: 'done', text: interruptText(host), ended_at: now() })
    return { status: 'interrupted', answer: '' }
  }
  const viewOptions = (omitPlans: boolean) => ({
    ...defaultViewOptions,
    omitPlans,
    stepId: (n: number) => makeId(ws, 'step', n),
    memberName: (n: number) => store.members.get(n)?.name ?? 'another member',
  })
  const specs = env.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))

  let ended: string | null = null
  let lastObservation = ''
  // A step stopped by a notice (interruptStep) says so in the session and in the view, and the loop goes on.
  const restarted = (step: RunningStep) => {
    insert({
      kind: 'interrupted',
      status: 'done',
      text: `Concord stopped the running step: ${step.reason}. The brief has the current decisions and the notice: re-plan against them.`,
      ended_at: now(),
    })
  }
  for (let n = 0; n < member.max_steps; n++) {
    // The brief, the view and the request are built in a loop turn of their own (loop-share.ts): members that
    // start together do not stack their preparations into one stall.
    await loopTurn()
    if (signal.aborted) return interrupted()
    const step: RunningStep = { controller: new AbortController(), reason: null }
    runningSteps.set(host, step)
    const stepSignal = AbortSignal.any([signal, step.controller.signal])

    if (member.planning_interval > 0 && n % member.planning_interval === 0) {
      const planned = await planStep(env, start, steps, viewOptions(true), stepSignal)
      if (planned === 'interrupted' && signal.aborted) return interrupted()
      if (planned === 'interrupted') {
        restarted(step)
        continue
      }
      if (planned !== 'ok') return { status: 'error', answer: '', error: planned.message, code: planned.code }
    }

    // Notices queued since the last call reach the member now, through the brief.
    const pending = store.log.notices(member.id, true)
    const brief = buildBrief(env.ctx, member, pending)
    host.lastBrief = brief
    if (pending.length) {
      store.log.markDelivered(member.id, pending.at(-1)!.id, now())
      insert({ kind: 'notice', status: 'done', text: pending.map((p) => p.text).join('\n\n'), ended_at: now() })
    }
    const messages = buildView(
      store.steps.recent(member.id, VIEW_LOOKBACK, member.session_start),
      start.id,
      viewOptions(false),
    )
    const system = `${systemPrompt(member, env.workspaceRoot, env.treeDescription)}\n\n${brief.text}`

    const reply = await streamModelStep(env, steps, { system, messages, tools: specs, signal: stepSignal })
    if (reply.kind === 'interrupted' && signal.aborted) return interrupted()
    if (reply.kind === 'interrupted') {
      restarted(step)
      continue
    }
    if (reply.kind === 'error') return { status: 'error', answer: '', error: reply.message, code: reply.code }
    const result = reply.result
    if (!result.toolCalls.length) return { status: 'done', answer: result.text }

    const observations = await Promise.all(
      result.toolCalls.map((call) =>
        runToolCall(
          env,
          host,
          call,
          reply.stepId,
          steps,
          stepSignal,
          (reason) => (ended = reason),
          () => step.reason,
        ),
      ),
    )
    lastObservation = observations.at(-1) ?? ''
    if (signal.aborted) return interrupted()
    if (ended) return { status: 'done', answer: lastObservation }
    if (step.reason) restarted(step)
  }
  insert({
    kind: 'error',
    status: 'error',
    text: `Stopped after ${member.max_steps} steps without an answer (maxSteps). The work is not finished.`,
    ended_at: now(),
  })
  return { status: 'max_steps', answer: lastObservation }
}

/** Who stopped the turn: the human (Stop) or Concord shutting down; never blame the human for a restart. */
function interruptText(host: MemberHost): string {
  return host.stopReason === 'shutdown'
    ? 'The turn was interrupted by a restart of Concord.'
    : 'The turn was interrupted by the human.'
}

async function streamModelStep(
  env: TurnEnv,
  { insert, finish }: TurnSteps,
  request: Parameters<ModelProvider['complete']>[0],
): Promise<
  { kind: 'ok'; result: ModelResult; stepId: number } | { kind: 'interrupted' } | ({ kind: 'error' } & ModelFailure)
> {
  const { store } = env.ctx
  const stepId = insert({ kind: 'model', status: 'streaming', text: '' })
  let text = ''
  let flushed = 0
  let timer: NodeJS.Timeout | null = null
  // Deltas an SDK still hands over after the call has settled (an abort at shutdown) are not this step's any more.
  let settled = false
  const flush = () => {
    timer = null
    if (!settled && text.length !== flushed) {
      store.steps.setText(stepId, text)
      flushed = text.length
    }
  }
  try {
    const result = await env.provider.complete(request, (delta) => {
      if (settled) return
      text += delta
      env.emitDelta(stepId, delta)
      // Durable within TEXT_FLUSH_MS: a crash loses at most the text of the last interval.
      timer ??= setTimeout(flush, TEXT_FLUSH_MS)
    })
    settled = true
    if (timer) clearTimeout(timer)
    finish(stepId, {
      status: 'done',
      text: result.text,
      tool_calls: JSON.stringify(result.toolCalls),
      input_tokens: result.usage?.inputTokens,
      output_tokens: result.usage?.outputTokens,
      ended_at: now(),
    })
    return { kind: 'ok', result, stepId }
  } catch (err) {
    settled = true
    if (timer) clearTimeout(timer)
    if (err instanceof ProviderError && err.code === 'aborted') {
      finish(stepId, { status: 'interrupted', text, ended_at: now() })
      return { kind: 'interrupted' }
    }
    const failure = modelFailure(err)
    finish(stepId, { status: 'error', text, is_error: 1, ended_at: now() })
    insert({
      kind: 'error',
      status: 'error',
      text: `The model call failed: ${failure.message}`,
      is_error: 1,
      ended_at: now(),
    })
    return { kind: 'error', ...failure }
  }
}

async function runToolCall(
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
  let raw: unknown
  try {
    raw = call.argumentsText.trim() ? JSON.parse(call.argumentsText) : {}
  } catch (err) {
    return fail(
      `error: the arguments are not valid JSON (${(err as Error).message}). Send the arguments of ${call.name} as one JSON object.`,
    )
  }
  let args: unknown
  try {
    args = parseArgs(tool.args, raw, call.name)
  } catch (err) {
    return fail(`error (invalid_arguments): ${(err as Error).message}`)
  }
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
    finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
    return text
  }
  if (answer.ask) {
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
      finish(stepId, { status: signal.aborted ? 'interrupted' : 'denied', text, is_error: 1, ended_at: now() })
      return text
    }
    steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
  }
  try {
    const output = await tool.run(
      args,
      env.toolContext(host, signal, endTurn, makeId(env.ctx.wsId, 'step', modelStepId)),
    )
    finish(stepId, { status: 'done', text: output, ended_at: now() })
    return output
  } catch (err) {
    const stopped = stoppedBy()
    if (stopped && err instanceof ToolError && err.code === 'aborted') {
      const text = `stopped: ${stopped}. ${err.message}`
      finish(stepId, { status: 'interrupted', text, is_error: 1, ended_at: now() })
      return text
    }
    if (err instanceof ToolError || err instanceof ApiError) return fail(`error (${err.code}): ${err.message}`)
    const e = err as { code?: string; message?: string }
    return fail(`error${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`)
  }
}

/** A model call that failed: the provider's message, and its code for the session (a refused key: provider_auth). */
interface ModelFailure {
  message: string
  code: SessionErrorCode
}

function modelFailure(err: unknown): ModelFailure {
  const message = err instanceof Error ? err.message : String(err)
  // ProviderError's codes other than 'aborted' (handled before) are session error codes too.
  const code = err instanceof ProviderError && err.code !== 'aborted' ? err.code : 'provider_error'
  return { message, code }
}

/** A planning call with a view that leaves old plans out (replanning does not build on stale plans). */
async function planStep(
  env: TurnEnv,
  start: StepRow,
  { insert, finish }: TurnSteps,
  options: Parameters<typeof buildView>[2],
  signal: AbortSignal,
): Promise<'ok' | 'interrupted' | ModelFailure> {
  const { store } = env.ctx
  const brief = buildBrief(env.ctx, env.member, [])
  const messages = buildView(
    store.steps.recent(env.member.id, VIEW_LOOKBACK, env.member.session_start),
    start.id,
    options,
  )
  messages.push({
    role: 'user',
    content:
      '[Planning step] Before you continue: list the facts you have established, what is left to do, and your next steps. Plain text, no tool calls.',
  })
  const stepId = insert({ kind: 'plan', status: 'streaming', text: '' })
  try {
    const result = await env.provider.complete(
      {
        system: `${systemPrompt(env.member, env.workspaceRoot, env.treeDescription)}\n\n${brief.text}`,
        messages,
        tools: [],
        signal,
      },
      (d) => env.emitDelta(stepId, d),
    )
    finish(stepId, {
      status: 'done',
      text: result.text,
      input_tokens: result.usage?.inputTokens,
      output_tokens: result.usage?.outputTokens,
      ended_at: now(),
    })
    return 'ok'
  } catch (err) {
    if (err instanceof ProviderError && err.code === 'aborted') {
      finish(stepId, { status: 'interrupted', ended_at: now() })
      return 'interrupted'
    }
    const failure = modelFailure(err)
    finish(stepId, { status: 'error', text: failure.message, is_error: 1, ended_at: now() })
    return failure
  }
}
