/**
 * The runtime: the registry of member hosts, one per member, created on first use, each running its turns with the
 * member's engine (Concord's own loop or an external agent over ACP, turn-engine.ts). What a turn needs around it
 * lives beside: its tree (turn-tree.ts), messages between members (messages.ts, delegation.ts), crash resume
 * (recovery.ts), warm-up (warm-up.ts), retry and reset (retry.ts), notices mid-turn (mid-turn-notice.ts).
 */
import { createHash } from 'node:crypto'
import type { MethodName, Params, ParsedParams, Result } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { SessionInfo, SessionPage, UndoneTurn } from '../../../shared/schemas'
import type { SessionErrorCode } from '../../../shared/session-errors'
import type { EventBus } from '../platform/events/event-bus'
import { stricterPolicy, type ApprovalPolicy } from '../harness/members/approval-policy'
import { addRule } from '../harness/members/approval-rules'
import { memberRowOf, taskRow, type Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, now, parseId } from '../harness/ids'
import { secretRef } from '../harness/members/members'
import { toStep } from '../harness/members/steps'
import { undoTurn } from '../harness/tasks/turn-undo'
import type { TurnTree } from '../harness/workspace/task-branches'
import type { StepRow } from '../harness/rows'
import { acpEngine } from './acp/acp-turn'
import { AgentPool } from './acp/agent-process'
import { builtinEngine } from './builtin-engine'
import { AutoTurns } from './auto-turns'
import { Delegations } from './delegation'
import { MemberHost, type TurnOutcome } from './member-host'
import { enqueue, promptWithNotices, queueTaskStart, wake, type Inbox } from './messages'
import { noticeMidTurn } from './mid-turn-notice'
import type { CreateProviderOptions } from './providers'
import { Recovery, resumeQueued } from './recovery'
import { failedTurn, requeueFailedTurn, resetSession } from './retry'
import { busSink, writeStep, type StepSink } from './step-writer'
import type { Turn, TurnEngine } from './turn-engine'
import { prepareTree, recordChanges, recordCheckpoint, snapshot } from './turn-tree'
import { warmUpProviders } from './warm-up'

export interface RuntimeOptions {
  harness: Harness
  bus: EventBus
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  provider?: CreateProviderOptions
  /** Deal with what a previous process left (see CoreOptions.transient); default true. */
  recover?: boolean
  /** See CoreOptions.taskStartTurns. */
  taskStartTurns?: boolean
}

export class Runtime {
  private readonly hosts = new Map<string, MemberHost>()
  /** External agents over ACP: one process per member, kept across turns. */
  private readonly agents = new AgentPool()
  private readonly recovery: Recovery
  private readonly delegations: Delegations
  private readonly builtin: TurnEngine
  private readonly acp: TurnEngine
  /** Where messages are queued: the members' hosts of this registry. */
  private readonly inbox: Inbox
  private closed = false
  /** Turns Concord starts itself for flagged members and stale evidence (auto-turns.ts). */
  private readonly autoTurns: AutoTurns
  /** The provider settings of each member in error as they were when it failed (providerSettings). */
  private readonly failedWith = new Map<string, string>()
  /** The policy of each member's running turn (its own, or stricter from the message that started it). */
  private readonly turnPolicies = new Map<string, ApprovalPolicy>()
  /** A turn being undone, by member: its next turn waits for the undo to finish (undoTurn). */
  private readonly undoing = new Map<string, Promise<unknown>>()

  constructor(private readonly o: RuntimeOptions) {
    this.recovery = new Recovery(o.harness, o.recover !== false)
    this.inbox = { harness: o.harness, bus: o.bus, host: (memberId) => this.host(memberId) }
    this.delegations = new Delegations(o.harness, (to, text, from, approval) =>
      enqueue(this.inbox, to, text, from.memberRowId, null, approval),
    )
    const message = (from: MemberHost, to: string, text: string, approval: Turn['approval'] | null) =>
      void enqueue(this.inbox, to, text, from.memberRowId, null, approval)
    this.builtin = builtinEngine({
      harness: o.harness,
      provider: o.provider,
      call: (method, params) => o.call(method, params),
      message,
      delegate: (from, to, task, signal, approval) => this.delegations.delegate(from, to, task, signal, approval),
    })
    this.acp = acpEngine({
      harness: o.harness,
      agents: this.agents,
      call: (method, params) => o.call(method, params),
      approve: (memberId, name, argumentsText) => this.approveExternal(memberId, name, argumentsText),
      message,
      promptWithNotices: (host) => promptWithNotices(o.harness, o.bus, host),
    })
    this.autoTurns = new AutoTurns({
      harness: o.harness,
      call: (method, params) => o.call(method, params),
      queued: (memberId, step) => this.queuedByConcord(memberId, step),
      busy: (memberId) => Boolean(this.hosts.get(memberId)?.abort),
      closing: () => this.closed,
    })
    o.bus.on((e) => this.autoTurns.onEvent(e))
    o.bus.on((e) => {
      if (e.event === 'member.changed') this.memberChanged(e.payload.member.id)
      const host = e.event === 'notice.created' ? this.hosts.get(e.payload.notice.memberId) : undefined
      if (host && e.event === 'notice.created') noticeMidTurn(o.harness, host, e.payload.notice)
    })
    // Leftovers of a crash are dealt with at start, not when someone next opens the workspace. Once the core is up:
    // the pending notices this process has not acted on (see AutoTurns.resume), and the messages queued when Concord
    // stopped. The SDKs its members use load once the first screen is up.
    const kinds = this.recovery.atStart((wsId) => {
      if (this.closed) return
      this.autoTurns.resume(wsId)
      resumeQueued(o.harness, wsId, (memberId) => this.host(memberId))
    })
    warmUpProviders(o.bus, kinds)
  }

  /**
   * A member was edited. Not in error: its inbox resumes. In error with its provider settings changed (the fix of a
   * refused key, say): the failed turn runs again with them, ahead of the messages queued behind it, so nothing is
   * typed again. In error with the same settings (a new role, say): nothing changes, the error and its Retry stay.
   */
  private memberChanged(memberId: string): void {
    const host = this.hosts.get(memberId)
    if (!host) return
    if (host.state !== 'error') return host.resume()
    if (this.failedWith.get(memberId) === this.providerSettings(host) || host.abort) return
    const { store } = this.o.harness.ctx(host.wsId)
    if (failedTurn(store, host.memberRowId)) this.retry(memberId)
    else host.resume()
  }

  /** What a turn's provider is made of (kind, model, endpoint, agent and key), as a digest: the key stays out of it. */
  private providerSettings(host: MemberHost): string {
    const m = this.o.harness.ctx(host.wsId).store.members.get(host.memberRowId)
    const key = this.o.harness.secrets.get(secretRef(host.memberId)) ?? null
    const { provider_kind, provider_model, provider_base_url, agent, agent_command, agent_args, agent_env } = m ?? {}
    const parts = [
      provider_kind,
      provider_model,
      provider_base_url,
      agent,
      agent_command,
      agent_args,
      agent_env,
      m?.agent_key_variable,
      key,
    ]
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex')
  }

  private ctx(wsId: string): Ctx {
    return this.recovery.ctx(wsId)
  }

  host(memberId: string, field = 'memberId'): MemberHost {
    const existing = this.hosts.get(memberId)
    if (existing) return existing
    const { workspaceId } = parseId(memberId, 'member', field)
    const ctx = this.ctx(workspaceId)
    const n = memberRowOf(ctx, memberId, field)
    const host = new MemberHost(workspaceId, n, {
      ctx: () => this.o.harness.ctx(workspaceId),
      onState: (h) => {
        if (h.state === 'error') this.failedWith.set(h.memberId, this.providerSettings(h))
        this.o.bus.emit('session.state', { workspaceId, session: h.info() })
      },
      runTurn: (h, start) => this.turn(h, start),
    })
    this.hosts.set(memberId, host)
    host.kick()
    return host
  }

  /** One turn: its tree prepared, run by the member's engine, what it changed in the tree recorded. */
  private async turn(host: MemberHost, start: StepRow): Promise<TurnOutcome> {
    const { harness, bus } = this.o
    const ctx = harness.ctx(host.wsId)
    const member = ctx.store.members.get(host.memberRowId)!
    if (!member.agent && (!member.provider_kind || !member.provider_model)) {
      return this.failTurn(
        ctx,
        start,
        `${member.name} has no model provider set: choose one in the member's settings.`,
        'no_provider',
      )
    }
    // A turn undone a moment ago: this one starts on the tree put back, and is told of it (the brief).
    await this.undoing.get(host.memberId)?.catch(() => undefined)
    ctx.store.turnUndo.tell(member.id, start.id)
    let tree: TurnTree
    try {
      tree = await prepareTree(harness, ctx, member, start)
    } catch (err) {
      return this.failTurn(
        ctx,
        start,
        `Could not prepare the repository for this turn: ${err instanceof Error ? err.message : String(err)}`,
        'tree_unavailable',
      )
    }
    const before = tree.readOnly ? null : await snapshot(harness, host.wsId, tree)
    recordCheckpoint(bus, ctx, start, tree, before)
    const turn: Turn = {
      ctx,
      member,
      host,
      start,
      tree,
      // A message from a turn under `ask` keeps that policy here: approval cannot be laundered through a member.
      approval: stricterPolicy(member.approval, start.approval),
      emitStep: this.sink(host.wsId),
      emitDelta: (stepId, text) =>
        bus.emit('session.delta', {
          workspaceId: host.wsId,
          memberId: host.memberId,
          stepId: makeId(host.wsId, 'step', stepId),
          text,
        }),
    }
    const engine = member.agent ? this.acp : this.builtin
    this.turnPolicies.set(host.memberId, turn.approval)
    let outcome: TurnOutcome
    try {
      outcome = await engine.run(turn)
    } finally {
      this.turnPolicies.delete(host.memberId)
      this.endOpenSteps(ctx, start)
    }
    await recordChanges(harness, bus, ctx, start, tree, before)
    engine.after?.(turn, outcome)
    return outcome
  }

  /**
   * The turn is over: a step of it still streaming or running (its last write failed, e.g. the disk filled mid-stream)
   * is ended as interrupted now, not left open until the next start of Concord. If this write fails too, the restart's
   * recovery ends it (recovery.ts).
   */
  private endOpenSteps(ctx: Ctx, start: StepRow): void {
    try {
      const open = ctx.store.steps.openOfTurn(start.id)
      if (!open.length) return
      const sink = this.sink(ctx.wsId)
      ctx.store.transaction(() => {
        for (const s of open) ctx.store.steps.finish(s.id, { status: 'interrupted', ended_at: now() })
      })
      for (const s of open) {
        const row = ctx.store.steps.get(s.id)
        if (row) sink(row)
      }
    } catch {
      // The store still refuses writes: the steps stay open and the next start's recovery ends them.
    }
  }

  private sink(wsId: string): StepSink {
    return busSink(this.o.bus, wsId)
  }

  /** A turn that could not start: its error step (the host shows the error state). */
  private failTurn(ctx: Ctx, start: StepRow, text: string, code: SessionErrorCode): TurnOutcome {
    writeStep(ctx.store, this.sink(ctx.wsId), {
      member_id: start.member_id,
      turn_id: start.id,
      task_id: start.task_id,
      kind: 'error',
      status: 'error',
      text,
      is_error: 1,
      started_at: now(),
      ended_at: now(),
    })
    return { status: 'error', answer: '', error: text, code }
  }

  /**
   * A task moved to in progress: its assignee gets a turn on it (see queueTaskStart). Moved by a member, the turn
   * carries that member's policy (its running turn's, which may be stricter than its own), as a message would: an
   * `ask` member cannot run commands through an `auto` assignee by starting its task. Moved by the human, the
   * assignee's own policy applies.
   */
  startTask(wsId: string, taskRowId: number, actorId: string | undefined): void {
    if (this.closed || this.o.taskStartTurns === false) return
    try {
      queueTaskStart(this.inbox, wsId, taskRowId, actorId, actorId ? this.actorPolicy(wsId, actorId) : null)
    } catch (err) {
      // The move stands; the card still lets the human start the conversation.
      console.error(
        `could not start the turn for task ${taskRowId} of workspace ${wsId}:`,
        err instanceof Error ? err.message : err,
      )
    }
  }

  /** A turn a use case queues for a member on a task (tasks.updateBranch), see AutoTurns.queueFor. */
  queueTurn(wsId: string, memberRowId: number, taskRowId: number, trigger: string, lines: string[]) {
    if (this.closed) return null
    return this.autoTurns.queueFor(wsId, memberRowId, taskRowId, trigger, lines)
  }

  /** The policy a member's action carries: the stricter of its own and its running turn's. */
  private actorPolicy(wsId: string, actorId: string): ApprovalPolicy {
    const ctx = this.ctx(wsId)
    const row = ctx.store.members.get(memberRowOf(ctx, actorId, 'actorId'))!
    return stricterPolicy(row.approval, this.turnPolicies.get(actorId))
  }

  /** A turn Concord queued (auto-turns.ts): shown in the session now, picked up when the member is free. */
  private queuedByConcord(memberId: string, step: StepRow): void {
    if (this.closed) return
    const host = this.host(memberId)
    this.sink(host.wsId)(step)
    wake(this.o.bus, host)
  }

  send(p: ParsedParams<'sessions.send'>): Result<'sessions.send'> {
    if (this.closed) throw new ApiError('busy', 'Concord is shutting down')
    const { host, stepId } = enqueue(this.inbox, p.memberId, p.text, null, p.taskId)
    return {
      stepId: makeId(host.wsId, 'step', stepId),
      queued: this.o.harness.ctx(host.wsId).store.steps.queuedCount(host.memberRowId),
    }
  }

  get(p: ParsedParams<'sessions.get'>): SessionPage {
    const host = this.host(p.memberId)
    const store = this.o.harness.ctx(host.wsId).store
    const limit = p.limit ?? 100
    const before = p.before ?? Number.MAX_SAFE_INTEGER
    const start = store.members.get(host.memberRowId)?.session_start ?? 0
    const rows = p.taskId
      ? store.steps.pageOfTask(host.memberRowId, taskRow(this.ctx(host.wsId), p.taskId).id, before, limit + 1)
      : store.steps.page(host.memberRowId, before, limit + 1, start)
    const hasMore = rows.length > limit
    const steps = (hasMore ? rows.slice(1) : rows).map((r) => toStep(host.wsId, r))
    return { ...host.info(), steps, hasMore }
  }

  list(workspaceId: string): SessionInfo[] {
    const ctx = this.ctx(workspaceId)
    return ctx.store.members.list().map((m) => this.host(makeId(workspaceId, 'member', m.id)).info())
  }

  /**
   * Starts a new conversation for a member whose history keeps failing: earlier steps stay in the store
   * and the export, out of the view. Messages still queued move into the new conversation.
   */
  reset(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError(
        'invalid_transition',
        `${memberId} is working; interrupt it before starting a new conversation`,
      )
    const moved = resetSession(this.o.harness.ctx(host.wsId).store, host.memberRowId)
    for (const [from, to] of moved) host.renameTurn(from, to)
    this.o.bus.emit('session.reset', { workspaceId: host.wsId, memberId })
    host.resume()
    return host.info()
  }

  /** The Restart of a member in error: a fresh agent process (the next turn loads the session where it can), the queue resumed. */
  restart(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError('invalid_transition', `${memberId} is working; interrupt it before restarting it`)
    this.agents.stop(memberId)
    host.resume()
    return host.info()
  }

  /** A `concord mcp` call that needs approval, from the agent of a turn Concord runs; null when none runs. */
  approveExternal(memberId: string, name: string, argumentsText: string): Promise<boolean | null> {
    const ask = this.hosts.get(memberId)?.approveExternal
    return ask ? ask(name, argumentsText) : Promise.resolve(null)
  }

  interrupt(memberId: string): SessionInfo {
    const host = this.host(memberId)
    host.interrupt()
    return host.info()
  }

  approve(p: ParsedParams<'sessions.approve'>): SessionInfo {
    const host = this.host(p.memberId)
    if (!host.approve(p.callId, p.allow, p.reason))
      throw new ApiError('not_found', `callId: no call ${p.callId} is waiting for approval`)
    return host.info()
  }

  /** Allow, and from now on allow the same kind of call without asking: a rule for the member or the team. */
  allowAlways(p: ParsedParams<'sessions.allowAlways'>): Result<'sessions.allowAlways'> {
    const host = this.host(p.memberId)
    const pending = host.approvals.get(p.callId)
    if (!pending) throw new ApiError('not_found', `callId: no call ${p.callId} is waiting for approval`)
    const suggestion = pending.suggestion ?? { tool: pending.name }
    // Never the whole tool for a command Concord cannot take apart: allowing run_command would allow anything.
    if (suggestion.noRule && !p.rule)
      throw new ApiError(
        'invalid_params',
        `callId: no rule is offered for this call: ${suggestion.noRule}; allow it once`,
      )
    const ctx = this.o.harness.ctx(host.wsId)
    const rule = addRule(
      ctx,
      p.scope === 'team' ? null : p.memberId,
      p.rule ?? { effect: 'allow', tool: suggestion.tool, commandPrefix: suggestion.commandPrefix ?? null },
    )
    host.approve(p.callId, true)
    return { session: host.info(), rule }
  }

  // ── Archive and retry (issue 13) ──────────────────────────────────────────────────────────────
  /** Work of a member only its host sees (a turn between two steps, an approval waiting), for members.archive. */
  activity(memberId: string): string | null {
    const host = this.hosts.get(memberId)
    if (host?.approvals.size) return 'an approval is waiting'
    return host?.abort ? 'a turn is running' : null
  }

  /** Runs a failed turn again from its message (see retry.ts); an agent gets a fresh process, as with Restart. */
  /** sessions.undoTurn: refused (busy) while the turn's member is in a turn; its next turn waits for the undo. */
  async undoTurn(stepId: string): Promise<UndoneTurn> {
    const { workspaceId, n } = parseId(stepId, 'step', 'stepId')
    const ctx = this.ctx(workspaceId)
    const row = ctx.store.steps.get(n)
    if (!row) throw new ApiError('not_found', `stepId: there is no step ${stepId}`)
    const host = this.host(makeId(workspaceId, 'member', row.member_id))
    if (host.abort || this.undoing.has(host.memberId))
      throw new ApiError('busy', `${host.memberId} is working; wait for its turn to end before undoing a turn`)
    const work = undoTurn(this.o.harness, ctx, stepId)
    this.undoing.set(host.memberId, work)
    try {
      return await work
    } finally {
      this.undoing.delete(host.memberId)
    }
  }

  retry(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError('invalid_transition', `${memberId} is working; wait for its turn to end before retrying`)
    const { store } = this.o.harness.ctx(host.wsId)
    const { stepId, moved } = requeueFailedTurn(
      store,
      host.memberRowId,
      store.members.get(host.memberRowId)?.name ?? memberId,
    )
    for (const [from, to] of moved) host.renameTurn(from, to)
    this.agents.stop(memberId)
    // Moved messages have new ids: the view reloads; otherwise the one new step is enough.
    if (moved.length) this.o.bus.emit('session.reset', { workspaceId: host.wsId, memberId })
    else this.sink(host.wsId)(store.steps.get(stepId)!)
    host.resume()
    return host.info()
  }
  // ── end of archive and retry ─────────────────────────────────────────────────────────────────

  /** Interrupts every running turn (their steps are recorded as interrupted). */
  async close(): Promise<void> {
    this.closed = true
    for (const h of this.hosts.values()) h.stop()
    const deadline = Date.now() + 2000
    while ([...this.hosts.values()].some((h) => h.abort) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    await this.agents.close()
  }
}
