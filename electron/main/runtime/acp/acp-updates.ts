/**
 * What an ACP agent tells during a turn, as steps: `session/update`s (text streams into a model step as deltas, tool
 * calls and plans get their own steps), permission requests (approvals under the member's policy), and the Concord
 * tool calls of its `concord mcp` that need the human.
 */
import type {
  ContentBlock,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk'
import {
  concordToolOf,
  describeAcpCall,
  needsHuman,
  repoToolOf,
  suggestedRule,
  type RepoToolRef,
  type SandboxState,
} from '../../harness/members/approval-policy'
import { rulesFor } from '../../harness/members/approval-rules'
import { makeId, now } from '../../harness/ids'
import { TEXT_FLUSH_MS } from '../../harness/members/steps'
import { MCP_TOOL_NAMES } from '../mcp/tool-names'
import type { MemberHost } from '../member-host'
import type { TurnSteps } from '../step-writer'
import type { AcpTurnEnv } from './turn-env'
import { toolArgs, toolResultText, type AcpToolCall } from './tool-steps'

const contentText = (c: ContentBlock): string =>
  c.type === 'text' ? c.text : c.type === 'resource_link' ? c.uri : `[${c.type}]`

/**
 * The option that answers this one call. Allow is allow_once (an "Always allow" is Concord's own rule, so removing it
 * in the member's settings takes effect); Deny is a reject that is not an abort of the whole turn where the agent
 * offers one (Codex names its turn-ending reject "abort"), else reject_once.
 */
export function pickOption(options: PermissionOption[], allow: boolean): RequestPermissionResponse {
  const aborts = (o: PermissionOption) => /abort|cancel/i.test(`${o.optionId} ${o.name}`)
  const kinds = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always']
  const byKind = (k: string) => options.filter((x) => x.kind === k)
  const o = allow
    ? kinds.map((k) => byKind(k)[0]).find(Boolean)
    : (kinds.flatMap(byKind).find((x) => !aborts(x)) ?? kinds.map((k) => byKind(k)[0]).find(Boolean))
  return o ? { outcome: { outcome: 'selected', optionId: o.optionId } } : { outcome: { outcome: 'cancelled' } }
}

export class AcpUpdates {
  /** The model step text streams into, until a tool call or plan interrupts it; the next text opens a new one. */
  private model: { id: number; text: string; flushed: number } | null = null
  private timer: NodeJS.Timeout | null = null
  /** The text of the last model step, the turn's answer. */
  answer = ''
  /** ACP tool call id → its step. */
  private readonly tools = new Map<string, number>()
  /** Keys in `tools` of steps Concord opened for a call before the agent reported it (never the agent's own ids). */
  private readonly early = new Set<string>()
  /**
   * ACP tool call id → the Concord tool the agent's report of it named (Qwen Code's tool_call carries
   * `_meta.toolName`; its permission request for the same call has only the arguments JSON as its title).
   */
  private readonly concordCalls = new Map<string, string>()
  private planStep: number | null = null
  /**
   * Denials of this turn: the agent hears them (with the human's reason) in its next prompt, since ACP's answer to a
   * permission request carries no reason, and Codex ends its turn on a reject.
   */
  readonly denials: string[] = []
  /** The turn's last finished model step: a cost reported after it closed is its. */
  private lastModel: number | null = null
  /** A cost reported while no model step of the turn was finished yet (see closeModel, settleCost). */
  private pendingCost: { micros: number; currency: string } | null = null
  /** The last notice recorded as delivered (see recordDeliveredNotices). */
  private noticesSeen: number

  constructor(
    private readonly env: AcpTurnEnv,
    private readonly host: MemberHost,
    private readonly steps: TurnSteps,
    /** Whether the agent runs in the OS sandbox (the policy asks for more without it). */
    private readonly sandbox: SandboxState,
    private readonly signal: AbortSignal,
  ) {
    this.noticesSeen = env.ctx.store.log.notices(env.member.id, false).at(-1)?.id ?? 0
  }

  private get store() {
    return this.env.ctx.store
  }

  private readonly flush = () => {
    this.timer = null
    const model = this.model
    if (model && model.text.length !== model.flushed) {
      this.store.steps.setText(model.id, model.text)
      model.flushed = model.text.length
    }
  }

  closeModel(usage?: { inputTokens?: number; outputTokens?: number }): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (!this.model) return
    this.steps.finish(this.model.id, {
      status: 'done',
      text: this.model.text,
      input_tokens: usage?.inputTokens,
      output_tokens: usage?.outputTokens,
      ended_at: now(),
    })
    this.answer = this.model.text
    this.lastModel = this.model.id
    this.model = null
    this.settleCost(null)
  }

  /**
   * The agent's cost so far in its session (ACP's usage_update carries a session's cumulative cost): what it grew by
   * since the last report is this turn's, recorded on its model step. A session Concord has not seen, or a total that
   * went down (the agent restarted it), counts from zero.
   */
  onCost(sessionId: string, cost: { amount: number; currency: string }): void {
    if (!Number.isFinite(cost.amount) || cost.amount < 0) return
    const micros = Math.round(cost.amount * 1e6)
    const { cost: costs } = this.store
    const memberId = this.env.member.id
    const seen = costs.sessionCost(memberId)
    const delta = seen.session === sessionId && micros >= seen.micros ? micros - seen.micros : micros
    costs.setSessionCost(memberId, sessionId, micros)
    if (delta <= 0) return
    const pending = this.pendingCost
    this.pendingCost = { micros: delta + (pending?.micros ?? 0), currency: cost.currency }
    if (!this.model) this.settleCost(null)
  }

  /** Puts a reported cost on the turn's last model step, or (none in the turn) on `fallback`, the turn's start. */
  settleCost(fallback: number | null): void {
    const stepId = this.lastModel ?? fallback
    if (!this.pendingCost || stepId === null) return
    this.store.cost.addStepCost(stepId, this.pendingCost.micros, this.pendingCost.currency)
    this.pendingCost = null
  }

  /** A call's step, made at its first mention; its arguments are filled in as the agent tells more (toolArgs). */
  private toolStep(toolCallId: string, title: string, call: AcpToolCall): number {
    const { store, tools } = this
    const named = concordToolOf(call, MCP_TOOL_NAMES)
    if (named) this.concordCalls.set(toolCallId, named)
    // A Concord tool's step keeps a name that says so: a title that is only the arguments JSON (Qwen Code's
    // permission request) does not replace it.
    const concord = this.concordCalls.get(toolCallId)
    const concordName = concord && !named ? `concord: ${concord}` : null
    const known = tools.get(toolCallId)
    if (known !== undefined) {
      const row = store.steps.get(known)
      const args = toolArgs(call)
      const name = concordName ? (row?.tool_name ?? concordName) : call.title || row?.tool_name || title
      const argsJson = args ? JSON.stringify(args) : (row?.tool_args ?? '{}')
      if (row && !row.ended_at && (name !== row.tool_name || argsJson !== row.tool_args)) {
        this.steps.change(known, (s) => s.setTool(known, name, argsJson))
      }
      return known
    }
    // A Concord tool call can ask for approval (approveExternal) before the agent's report of it arrives: that step
    // is this call's.
    const early = [...tools].find(
      ([key, id]) =>
        this.early.has(key) && !store.steps.get(id)?.ended_at && title.includes(store.steps.get(id)?.tool_name ?? '\0'),
    )
    if (early) {
      this.early.delete(early[0])
      tools.delete(early[0])
      tools.set(toolCallId, early[1])
      return this.toolStep(toolCallId, title, call)
    }
    this.closeModel()
    const id = this.steps.insert({
      kind: 'tool',
      status: 'running',
      tool_call_id: toolCallId,
      tool_name: concordName ?? title,
      tool_args: JSON.stringify(toolArgs(call) ?? {}),
    })
    tools.set(toolCallId, id)
    return id
  }

  /** The ACP session of the turn (its cost reports are cumulative per session). */
  sessionId = ''
  /** The repository's MCP servers' tools Concord serves the agent this turn (repo-mcp-turn.ts). */
  repoTools: RepoToolRef[] = []

  readonly onUpdate = (u: SessionUpdate): void => {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk': {
        const text = contentText(u.content)
        if (!text) return
        this.model ??= { id: this.steps.insert({ kind: 'model', status: 'streaming', text: '' }), text: '', flushed: 0 }
        this.model.text += text
        this.env.emitDelta(this.model.id, text)
        this.timer ??= setTimeout(this.flush, TEXT_FLUSH_MS)
        return
      }
      case 'tool_call':
        this.toolStep(u.toolCallId, u.title, u)
        if (u.status === 'completed' || u.status === 'failed')
          this.finishTool(u.toolCallId, u.status, toolResultText(u))
        return
      case 'tool_call_update': {
        this.toolStep(u.toolCallId, u.title ?? 'tool', u)
        if (u.status === 'completed' || u.status === 'failed')
          this.finishTool(u.toolCallId, u.status, toolResultText(u))
        return
      }
      case 'plan': {
        const text = u.entries.map((e) => `- [${e.status}] ${e.content}`).join('\n')
        this.closeModel()
        if (this.planStep === null)
          this.planStep = this.steps.insert({ kind: 'plan', status: 'done', text, ended_at: now() })
        else {
          const id = this.planStep
          this.steps.change(id, (s) => s.setText(id, text))
        }
        return
      }
      case 'usage_update':
        if (u.cost) this.onCost(this.sessionId, u.cost)
        return
      default:
        return
    }
  }

  private finishTool(toolCallId: string, status: 'completed' | 'failed', text: string): void {
    const id = this.tools.get(toolCallId)
    if (id === undefined) return
    const row = this.store.steps.get(id)
    if (row && row.ended_at) return
    this.steps.finish(id, {
      status: status === 'completed' ? 'done' : 'error',
      text,
      is_error: status === 'failed' ? 1 : 0,
      ended_at: now(),
    })
    this.recordDeliveredNotices()
  }

  /** Notices `concord mcp` delivers with a tool result are recorded here, after that tool call (see takeNotices). */
  private recordDeliveredNotices(): void {
    const { store, env } = this
    const delivered = store.log.notices(env.member.id, false).filter((n) => n.id > this.noticesSeen && n.delivered_at)
    if (!delivered.length) return
    this.noticesSeen = delivered.at(-1)!.id
    this.steps.insert({
      kind: 'notice',
      status: 'done',
      text: delivered.map((p) => p.text).join('\n\n'),
      ended_at: now(),
    })
  }

  /** A permission request of the agent: decided by the member's policy and rules, or put to the human. */
  readonly onPermission = async (
    r: RequestPermissionRequest,
    reqSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> => {
    const { env, host, steps } = this
    const call = r.toolCall
    const optionNames = r.options.map((o) => o.name)
    const concord = concordToolOf(call, MCP_TOOL_NAMES, optionNames)
    if (concord) this.concordCalls.set(call.toolCallId, concord)
    const stepId = this.toolStep(call.toolCallId, call.title ?? 'tool', call)
    const callId = makeId(env.ctx.wsId, 'step', stepId)
    // The same decision as for Concord's own loop (approval-policy.ts): the member's policy, its rules and the team's.
    const described = describeAcpCall(call, {
      root: env.remote?.place.root ?? env.workspaceRoot,
      readOnlyTree: !!env.sandbox?.readOnlyTree,
      concordTools: MCP_TOOL_NAMES,
      knownConcordTool: this.concordCalls.get(call.toolCallId) ?? null,
      optionNames,
      repoTools: this.repoTools,
    })
    const answer = needsHuman(env.approval, rulesFor(env.ctx, env.member.id), described, this.sandbox)
    if (answer.deny) {
      const text = `Refused without asking: this call was ${answer.why}.`
      steps.finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
      this.denials.push(`${call.title ?? 'a tool call'}: ${text}`)
      return pickOption(r.options, false)
    }
    if (!answer.ask) return pickOption(r.options, true)
    steps.change(stepId, (s) => s.setStatus(stepId, 'waiting_approval'))
    // The card shows what the call will do in the shapes built-in members' calls have (a command, a path with its
    // old and new text, a path with its content): Gemini's request carries its edit only as a diff, not in rawInput;
    // Copilot CLI's carries none of them, its tool_call before it did (the step's arguments).
    const args = toolArgs(call)
    const reported = this.store.steps.get(stepId)?.tool_args
    const argsText = args
      ? JSON.stringify(args)
      : reported && reported !== '{}'
        ? reported
        : JSON.stringify(call.rawInput ?? {})
    const allowed = await host.requestApproval(callId, stepId, call.title ?? 'tool', argsText, {
      why: answer.why,
      suggestion: suggestedRule(described, answer),
    })
    if (this.signal.aborted || reqSignal.aborted) return { outcome: { outcome: 'cancelled' } }
    if (!allowed) {
      const text = host.denialText(callId)
      steps.finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
      this.denials.push(`${call.title ?? 'a tool call'}: ${text}`)
      return pickOption(r.options, false)
    }
    steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
    return pickOption(r.options, true)
  }

  /**
   * A Concord tool call that needs the human's approval under `ask` comes from concord mcp: it waits on the tool
   * step ACP already reported for it (the latest open one of that name), else on a step of its own.
   */
  readonly approveExternal = async (name: string, argumentsText: string): Promise<boolean> => {
    const { store, signal, steps } = this
    // A repository server's tool (`mcp__<server>__<tool>`) is on the step the agent named it on in its own way.
    const names = (toolName: string) =>
      toolName.includes(name) || repoToolOf({ title: toolName }, this.repoTools) === name
    const open = [...this.tools.values()].reverse().find((id) => {
      const row = store.steps.get(id)
      return !!row && !row.ended_at && names(row.tool_name ?? '')
    })
    const early = `concord-early-${name}-${now()}`
    if (!open) this.early.add(early)
    const stepId = open ?? this.toolStep(early, name, { rawInput: JSON.parse(argumentsText) })
    steps.change(stepId, (s) => s.setStatus(stepId, 'waiting_approval'))
    const callId = makeId(this.env.ctx.wsId, 'step', stepId)
    const allowed = await this.host.requestApproval(callId, stepId, name, argumentsText)
    if (!signal.aborted && store.steps.get(stepId)?.status === 'waiting_approval') {
      // A denied call is over (the agent hears it in the tool's result): its step does not wait for the agent's word.
      if (allowed) steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
      else steps.finish(stepId, { status: 'denied', text: this.host.denialText(callId), is_error: 1, ended_at: now() })
    }
    return allowed && !signal.aborted
  }

  /** At the turn's end: the tool calls the agent left open are closed (interrupted when the turn was stopped). */
  finishOpen(stopped: boolean): void {
    for (const [, id] of this.tools) {
      const row = this.store.steps.get(id)
      if (row && !row.ended_at) this.steps.finish(id, { status: stopped ? 'interrupted' : 'done', ended_at: now() })
    }
  }
}
