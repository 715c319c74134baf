/**
 * One long-lived host per member: a FIFO inbox (queued steps in the store), one turn at a time,
 * a state the UI can watch, approvals, and interrupts. Members run in parallel, each in its own host.
 */
import type { SessionInfo } from '../../../shared/schemas'
import type { SessionErrorCode } from '../../../shared/session-errors'
import { makeId } from '../harness/ids'
import type { Ctx } from '../harness/context'
import type { StepRow } from '../harness/rows'
import type { Brief } from './brief'

export type HostState = SessionInfo['state']

export interface TurnOutcome {
  status: 'done' | 'interrupted' | 'error' | 'max_steps'
  answer: string
  error?: string
  /** Why it failed, for code (default turn_failed). */
  code?: SessionErrorCode
}

/** What the card shows beside the call: why it asks, and the rule "Always allow" would add. */
export interface ApprovalExtra {
  why?: string
  suggestion?: { tool: string; commandPrefix?: string; noRule?: string }
  /** A write_file's target as it is now (null: a new file), for the diff on the card. */
  current?: string | null
}

interface PendingApproval extends ApprovalExtra {
  stepId: number
  name: string
  argumentsText: string
  resolve(allow: boolean): void
}

export interface HostEnv {
  ctx(): Ctx
  runTurn(host: MemberHost, start: StepRow): Promise<TurnOutcome>
  onState(host: MemberHost): void
  /** The member's next queued step to run (default: the oldest; the runtime passes over turns its budget holds). */
  nextStep?(memberRowId: number): StepRow | undefined
}

export class MemberHost {
  state: HostState = 'idle'
  error: string | null = null
  errorCode: SessionErrorCode | null = null
  abort: AbortController | null = null
  /** Why the current turn was stopped: the human, Concord shutting down, or a notice that interrupts (ACP agents). */
  stopReason: 'human' | 'shutdown' | 'notice' = 'human'
  private stopped = false
  lastBrief: Brief | null = null
  /** Set while an ACP turn runs: puts a Concord tool call its agent makes through `concord mcp` to the human. */
  approveExternal: ((name: string, argumentsText: string) => Promise<boolean>) | null = null
  readonly approvals = new Map<string, PendingApproval>()
  /** The human's reason for a denial, until the turn turns it into the call's result for the agent. */
  private readonly denyReasons = new Map<string, string>()
  private readonly turnWaiters = new Map<number, (o: TurnOutcome) => void>()
  private pumping = false

  constructor(
    readonly wsId: string,
    readonly memberRowId: number,
    private readonly env: HostEnv,
  ) {}

  get memberId(): string {
    return makeId(this.wsId, 'member', this.memberRowId)
  }

  info(): SessionInfo {
    const store = this.env.ctx().store
    return {
      memberId: this.memberId,
      state: this.state,
      error: this.error,
      errorCode: this.errorCode,
      queued: store.steps.queuedCount(this.memberRowId),
      pendingApprovals: [...this.approvals.entries()].map(([callId, a]) => ({
        callId,
        name: a.name,
        argumentsText: a.argumentsText,
        ...(a.why ? { why: a.why } : {}),
        ...(a.suggestion ? { suggestion: a.suggestion } : {}),
        ...(a.current !== undefined ? { current: a.current } : {}),
      })),
      pendingNotices: store.log.pendingCount(this.memberRowId),
      question: this.openQuestion(),
    }
  }

  private openQuestion(): SessionInfo['question'] {
    const row = this.env.ctx().store.steps.openQuestion(this.memberRowId)
    if (!row) return null
    let text = ''
    try {
      const q = (JSON.parse(row.tool_args ?? '{}') as { question?: unknown }).question
      text = typeof q === 'string' ? q : ''
    } catch {
      // The tool only ran with valid arguments; an unreadable row still counts as a question.
    }
    return { stepId: makeId(this.wsId, 'step', row.id), text }
  }

  setState(state: HostState, error: string | null = null, code: SessionErrorCode | null = null): void {
    this.state = state
    this.error = error
    this.errorCode = error === null ? null : (code ?? 'turn_failed')
    this.env.onState(this)
  }

  /** Starts working through the inbox unless already busy or stopped on an error. */
  kick(): void {
    if (this.stopped || this.pumping || this.state === 'error') return
    this.pumping = true
    void this.pump().finally(() => {
      this.pumping = false
      // A message queued while the loop was finishing must not wait for the next send.
      if (this.state !== 'error' && this.nextStep()) this.kick()
    })
  }

  /** Clears an error state (new message, provider fixed) and resumes the inbox. */
  resume(): void {
    if (this.state === 'error') this.setState('idle')
    this.kick()
  }

  whenTurnEnds(startStepId: number): Promise<TurnOutcome> {
    return new Promise((resolve) => this.turnWaiters.set(startStepId, resolve))
  }

  /** A queued message got a new id (sessions.reset): whoever waits on its turn keeps waiting on it. */
  renameTurn(from: number, to: number): void {
    const waiter = this.turnWaiters.get(from)
    if (!waiter) return
    this.turnWaiters.delete(from)
    this.turnWaiters.set(to, waiter)
  }

  private nextStep(): StepRow | undefined {
    return this.env.nextStep
      ? this.env.nextStep(this.memberRowId)
      : this.env.ctx().store.steps.nextQueued(this.memberRowId)
  }

  private async pump(): Promise<void> {
    const store = this.env.ctx().store
    for (;;) {
      if (this.stopped) break
      const next = this.nextStep()
      if (!next) break
      if (!store.steps.startTurn(next.id)) continue
      this.abort = new AbortController()
      this.stopReason = 'human'
      this.setState('running')
      let outcome: TurnOutcome
      try {
        outcome = await this.env.runTurn(this, { ...next, status: 'done', turn_id: next.id })
      } catch (err) {
        outcome = { status: 'error', answer: '', error: err instanceof Error ? err.message : String(err) }
      }
      this.abort = null
      this.turnWaiters.get(next.id)?.(outcome)
      this.turnWaiters.delete(next.id)
      if (outcome.status === 'error') {
        // The rest of the inbox stays queued until the user sends again or fixes the provider.
        this.setState('error', outcome.error ?? 'the turn failed', outcome.code)
        return
      }
    }
    if (this.state !== 'idle') this.setState('idle')
  }

  /** Stops the current turn at once: the model call and running tools are aborted, approvals denied. */
  /** Concord is stopping: the turn in progress is interrupted and no queued message starts (the next start runs them). */
  stop(): void {
    this.stopped = true
    this.interrupt('shutdown')
  }

  interrupt(reason: MemberHost['stopReason'] = 'human'): boolean {
    if (!this.abort) return false
    this.stopReason = reason
    this.abort.abort()
    for (const a of this.approvals.values()) a.resolve(false)
    return true
  }

  /** What the agent is told about a denied call: the human's reason when one was given. */
  denialText(callId: string): string {
    const reason = this.denyReasons.get(callId)
    this.denyReasons.delete(callId)
    return reason ? `Denied by the human: ${reason}` : 'The human denied this call.'
  }

  requestApproval(
    callId: string,
    stepId: number,
    name: string,
    argumentsText: string,
    extra: ApprovalExtra = {},
  ): Promise<boolean> {
    return new Promise((resolve) => {
      this.approvals.set(callId, {
        ...extra,
        stepId,
        name,
        argumentsText,
        resolve: (allow) => {
          if (!this.approvals.delete(callId)) return
          // The state goes out after every answer, not only the last: an answered call must leave the card at once.
          if (this.state === 'waiting_approval' && this.approvals.size === 0) this.setState('running')
          else this.env.onState(this)
          resolve(allow)
        },
      })
      this.setState('waiting_approval')
    })
  }

  approve(callId: string, allow: boolean, reason?: string): boolean {
    const a = this.approvals.get(callId)
    if (!a) return false
    if (!allow && reason?.trim()) this.denyReasons.set(callId, reason.trim())
    a.resolve(allow)
    return true
  }
}
