/**
 * The runtime's two turn engines (turn-engine.ts): Concord's own loop (builtin-engine.ts) for a member with a model,
 * an external agent over ACP (acp/acp-turn.ts) for a member with an agent. Both send messages through the inbox.
 */
import type { MethodName, Params, Result } from '../../../shared/contract'
import type { EventBus } from '../platform/events/event-bus'
import type { Harness } from '../harness/harness'
import type { MemberRow } from '../harness/rows'
import { acpEngine } from './acp/acp-turn'
import type { AgentPool } from './acp/agent-process'
import { builtinEngine } from './builtin-engine'
import type { Delegations } from './delegation'
import type { MemberHost } from './member-host'
import { enqueue, promptWithNotices, type Inbox } from './messages'
import type { CreateProviderOptions } from './providers'
import type { Turn, TurnEngine } from './turn-engine'

export interface EnginesEnv {
  harness: Harness
  bus: EventBus
  provider?: CreateProviderOptions
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  agents: AgentPool
  inbox: Inbox
  delegations: Delegations
  /** A `concord mcp` call that needs approval, from the agent of a turn Concord runs. */
  approve(memberId: string, name: string, argumentsText: string): Promise<boolean | null>
}

/** The engine of a member's turns: its agent's over ACP when it has one, else Concord's own loop. */
export function turnEngines(env: EnginesEnv): (member: MemberRow) => TurnEngine {
  const { harness, bus, inbox } = env
  const message = (from: MemberHost, to: string, text: string, approval: Turn['approval'] | null) =>
    void enqueue(inbox, to, text, from.memberRowId, null, approval)
  const builtin = builtinEngine({
    harness,
    provider: env.provider,
    call: (method, params) => env.call(method, params),
    message,
    delegate: (from, to, task, signal, approval) => env.delegations.delegate(from, to, task, signal, approval),
  })
  const acp = acpEngine({
    harness,
    agents: env.agents,
    call: (method, params) => env.call(method, params),
    approve: (memberId, name, argumentsText) => env.approve(memberId, name, argumentsText),
    message,
    promptWithNotices: (host) => promptWithNotices(harness, bus, host),
  })
  return (member) => (member.agent ? acp : builtin)
}
