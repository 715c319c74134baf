/**
 * One turn of a member: build the view → call the model (streaming) → run the tool calls it asked for
 * (in parallel) → record each step → repeat, until it answers, reports, asks the human, hits maxSteps
 * or is interrupted. The model proposes; the runtime validates and executes (DESIGN §3).
 */
import type { SessionErrorCode } from '../../../shared/session-errors'
import { makeId, makeKey, now } from '../harness/ids'
import type { MemberRow, StepRow } from '../harness/rows'
import { TEXT_FLUSH_MS } from '../harness/members/steps'
import { turnSteps, type TurnSteps } from './step-writer'
import { buildBrief } from './brief'
import { deliverBrief } from './deliver-brief'
import { buildView, defaultViewOptions } from './context-view'
import { loopTurn } from './loop-share'
import type { MemberHost, TurnOutcome } from './member-host'
import { ProviderError, type ChatMessage, type ModelProvider, type ModelResult } from './providers/types'
import { turnTask } from './turn-task'
import { runToolCall } from './tool-call-step'
import type { TurnEnv } from './turn-env'

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
  const member = env.member
  const signal = host.abort!.signal
  const taskId = turnTask(env.ctx, member, start)
  const steps = turnSteps(env.ctx.store, env.emitStep, { memberRowId: member.id, turnId: start.id, taskId })
  const { insert } = steps
  const interrupted = (): TurnOutcome => {
    insert({ kind: 'interrupted', status: 'done', text: interruptText(host), ended_at: now() })
    return { status: 'interrupted', answer: '' }
  }
  for (const text of env.notices ?? []) insert({ kind: 'notice', status: 'done', text, ended_at: now() })
  const specs = env.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))

  let ended: string | null = null
  let lastObservation = ''
  const restarted = (step: RunningStep) => recordRestart(steps, step)
  for (let n = 0; n < member.max_steps; n++) {
    // The brief, the view and the request are built in a loop turn of their own (loop-share.ts): members that
    // start together do not stack their preparations into one stall.
    await loopTurn()
    if (signal.aborted) return interrupted()
    const step: RunningStep = { controller: new AbortController(), reason: null }
    runningSteps.set(host, step)
    const stepSignal = AbortSignal.any([signal, step.controller.signal])

    if (member.planning_interval > 0 && n % member.planning_interval === 0) {
      const planned = await planStep(env, start, steps, viewOptions(env, true), stepSignal)
      if (planned === 'interrupted' && signal.aborted) return interrupted()
      if (planned === 'interrupted') {
        restarted(step)
        continue
      }
      if (planned !== 'ok') return { status: 'error', answer: '', error: planned.message, code: planned.code }
    }

    const request = { ...stepRequest(env, host, start, steps), tools: specs, signal: stepSignal }
    const reply = await streamModelStep(env, steps, request)
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

/** A step stopped by a notice (interruptStep) says so in the session and in the view, and the loop goes on. */
function recordRestart({ insert }: TurnSteps, step: RunningStep): void {
  insert({
    kind: 'interrupted',
    status: 'done',
    text: `Concord stopped the running step: ${step.reason}. The brief has the current decisions and the notice: re-plan against them.`,
    ended_at: now(),
  })
}

/** The options of the member's view of the session; a planning view leaves old plans out. */
function viewOptions(env: TurnEnv, omitPlans: boolean): Parameters<typeof buildView>[2] {
  const { store, wsId } = env.ctx
  return {
    ...defaultViewOptions,
    omitPlans,
    stepId: (n: number) => makeId(wsId, 'step', n),
    memberName: (n: number) => store.members.get(n)?.name ?? 'another member',
    images: (n: number) =>
      store.stepImages.of(n).map((i) => ({ mediaType: i.media_type, data: i.data.toString('base64') })),
  }
}

/** The system prompt and messages of one model call: notices queued since the last call reach the member now, through the brief. */
function stepRequest(
  env: TurnEnv,
  host: MemberHost,
  start: StepRow,
  steps: TurnSteps,
): { system: string; messages: ReturnType<typeof buildView> } {
  const { store } = env.ctx
  const member = env.member
  const brief = deliverBrief(env.ctx, member, steps)
  host.lastBrief = brief
  const messages = buildView(
    store.steps.recent(member.id, VIEW_LOOKBACK, member.session_start),
    start.id,
    viewOptions(env, false),
  )
  const system = `${systemPrompt(member, env.workspaceRoot, env.treeDescription)}\n\n${brief.text}`
  return { system, messages }
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
      model: env.member.provider_model,
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
    const failure = modelFailure(err, request.messages)
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

/** A model call that failed: the provider's message, and its code for the session (a refused key: provider_auth). */
interface ModelFailure {
  message: string
  code: SessionErrorCode
}

function modelFailure(err: unknown, messages: ChatMessage[] = []): ModelFailure {
  const said = err instanceof Error ? err.message : String(err)
  // A model that takes no images refuses the call with a 4xx of its own words: say what the likely cause is.
  const refused = err instanceof ProviderError && err.status !== undefined && err.status >= 400 && err.status < 500
  const withImages = messages.some((m) => m.role === 'user' && m.images?.length)
  const message =
    refused && withImages && err.code !== 'provider_auth' && err.code !== 'provider_rate_limited'
      ? `${said} — this call carried images: the model may not take image input. Send the message again without them, or give the member a model that reads images.`
      : said
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
      model: env.member.provider_model,
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
