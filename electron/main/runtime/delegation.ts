/** `delegate`: a member hands a task to another and waits for its answer; a wait cycle is refused. */
import type { ApprovalPolicy } from '../harness/members/approval-policy'
import type { Harness } from '../harness/harness'
import { ToolError } from '../platform/tool-error'
import type { MemberHost, TurnOutcome } from './member-host'

export class Delegations {
  /** member id → the member it is waiting on through `delegate` (to refuse cycles). */
  private readonly waitingOn = new Map<string, string>()

  constructor(
    private readonly harness: Harness,
    /** Queues the task as a message from `from` to `to`. */
    private readonly enqueue: (
      to: string,
      text: string,
      from: MemberHost,
      approval: ApprovalPolicy,
    ) => { host: MemberHost; stepId: number },
  ) {}

  async delegate(
    from: MemberHost,
    to: string,
    task: string,
    signal: AbortSignal,
    approval: ApprovalPolicy,
  ): Promise<string> {
    // Refuse a wait cycle: following who waits on whom from the target must not lead back here.
    for (let m: string | undefined = to; m; m = this.waitingOn.get(m)) {
      if (m === from.memberId)
        throw new ToolError('delegation_cycle', `${to} is (indirectly) waiting on you; delegating to it would deadlock`)
    }
    const { host, stepId } = this.enqueue(to, task, from, approval)
    this.waitingOn.set(from.memberId, to)
    try {
      const outcome = await new Promise<TurnOutcome>((resolve, reject) => {
        const onAbort = () => reject(new ToolError('aborted', 'interrupted while waiting for the delegated member'))
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        void host.whenTurnEnds(stepId).then((o) => {
          signal.removeEventListener('abort', onAbort)
          resolve(o)
        })
      })
      const name = this.harness.ctx(host.wsId).store.members.get(host.memberRowId)?.name ?? to
      if (outcome.status === 'done') return `${name} answered:\n${outcome.answer}`
      return `${name}'s turn ended without an answer (${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}).`
    } finally {
      this.waitingOn.delete(from.memberId)
    }
  }
}
