/**
 * The runtime: the registry of member hosts, one per member, created on first use, each running its turns with the
 * member's engine (Concord's own loop or an external agent over ACP: engines.ts, turn-engine.ts). What a turn needs
 * around it lives beside: the turn itself (turn-run.ts), its tree (turn-tree.ts), messages between members
 * (messages.ts, delegation.ts), crash resume (recovery.ts), warm-up (warm-up.ts), retry and reset (retry.ts), notices
 * mid-turn (mid-turn-notice.ts), a session's pages (session-page.ts), approvals kept as rules (allow-always.ts).
 */
import type { MethodName, Params, ParsedParams, Result } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { SessionInfo, SessionPage, UndoneTurn } from '../../../shared/schemas'
import type { EventBus } from '../platform/events/event-bus'
import { stricterPolicy, type ApprovalPolicy } from '../harness/members/approval-policy'
import { memberRowOf, type Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, parseId } from '../harness/ids'
import type { StepRow } from '../harness/rows'
import { nextTurnStep } from '../harness/reports/auto-turn-queue'
import { AgentPool } from './acp/agent-process'
import { turnEngines } from './engines'
import { AutoTurns } from './auto-turns'
import { Delegations } from './delegation'
import { allowAlways } from './allow-always'
import { MemberHost } from './member-host'
import { enqueue, queueTaskStart, wake, type Inbox } from './messages'
import { noticeMidTurn } from './mid-turn-notice'
import type { CreateProviderOptions } from './providers'
import { Recovery, resumeQueued } from './recovery'
import { providerSettings } from './provider-settings'
import { failedTurn, resetConversation, retryTurn } from './retry'
import { sessionPage } from './session-page'
import { busSink } from './step-writer'
import { runTurn, undoWhenIdle, type TurnRunEnv } from './turn-run'
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
  private readonly turnEnv: TurnRunEnv

  constructor(private readonly o: RuntimeOptions) {
    this.recovery = new Recovery(o.harness, o.recover !== false)
    this.inbox = { harness: o.harness, bus: o.bus, host: (memberId) => this.host(memberId) }
    this.delegations = new Delegations(o.harness, (to, text, from, approval) =>
      enqueue(this.inbox, to, text, from.memberRowId, null, approval),
    )
    this.turnEnv = {
      harness: o.harness,
      bus: o.bus,
      engine: turnEngines({
        ...o,
        agents: this.agents,
        inbox: this.inbox,
        delegations: this.delegations,
        approve: (memberId, name, argumentsText) => this.approveExternal(memberId, name, argumentsText),
      }),
      undoing: this.undoing,
      turnPolicies: this.turnPolicies,
    }
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
      // A budget raised or removed: the turns it held in the members' inboxes run now (see nextTurnStep).
      if (e.event === 'workspace.settings' && e.payload.budgetFreed)
        for (const h of this.hosts.values()) if (h.wsId === e.payload.workspaceId) h.kick()
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
    if (this.failedWith.get(memberId) === providerSettings(this.o.harness, host) || host.abort) return
    const { store } = this.o.harness.ctx(host.wsId)
    if (failedTurn(store, host.memberRowId)) this.retry(memberId)
    else host.resume()
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
    /** Concord's own turns this member's budget held (counted once each). */
    const held = new Set<number>()
    const host = new MemberHost(workspaceId, n, {
      ctx: () => this.o.harness.ctx(workspaceId),
      onState: (h) => {
        if (h.state === 'error') this.failedWith.set(h.memberId, providerSettings(this.o.harness, h))
        this.o.bus.emit('session.state', { workspaceId, session: h.info() })
      },
      runTurn: (h, start) => runTurn(this.turnEnv, h, start),
      nextStep: (row) => nextTurnStep(this.o.harness.ctx(workspaceId), row, held),
    })
    this.hosts.set(memberId, host)
    host.kick()
    return host
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
    busSink(this.o.bus, host.wsId)(step)
    wake(this.o.bus, host)
  }

  send(p: ParsedParams<'sessions.send'>): Result<'sessions.send'> {
    if (this.closed) throw new ApiError('busy', 'Concord is shutting down')
    const { host, stepId } = enqueue(this.inbox, p.memberId, p.text, null, p.taskId, null, p.images)
    return {
      stepId: makeId(host.wsId, 'step', stepId),
      queued: this.o.harness.ctx(host.wsId).store.steps.queuedCount(host.memberRowId),
    }
  }

  get(p: ParsedParams<'sessions.get'>): SessionPage {
    const host = this.host(p.memberId)
    return sessionPage(this.ctx(host.wsId), host, p)
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
    resetConversation(this.o.bus, this.o.harness.ctx(host.wsId), host)
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
    return allowAlways(this.o.harness.ctx(host.wsId), host, p)
  }

  // ── Archive and retry (issue 13) ──────────────────────────────────────────────────────────────
  /** Work of a member only its host sees (a turn between two steps, an approval waiting), for members.archive. */
  activity(memberId: string): string | null {
    const host = this.hosts.get(memberId)
    if (host?.approvals.size) return 'an approval is waiting'
    return host?.abort ? 'a turn is running' : null
  }

  /** sessions.undoTurn: refused (busy) while the turn's member is in a turn; its next turn waits for the undo. */
  async undoTurn(stepId: string): Promise<UndoneTurn> {
    const { workspaceId, n } = parseId(stepId, 'step', 'stepId')
    const ctx = this.ctx(workspaceId)
    const row = ctx.store.steps.get(n)
    if (!row) throw new ApiError('not_found', `stepId: there is no step ${stepId}`)
    const host = this.host(makeId(workspaceId, 'member', row.member_id))
    return undoWhenIdle(this.o.harness, ctx, host, this.undoing, stepId)
  }

  /** Runs a failed turn again from its message (see retry.ts); an agent gets a fresh process, as with Restart. */
  retry(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError('invalid_transition', `${memberId} is working; wait for its turn to end before retrying`)
    retryTurn(this.o.bus, this.o.harness.ctx(host.wsId), host, () => this.agents.stop(memberId))
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
