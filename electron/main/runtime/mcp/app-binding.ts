/**
 * Concord's MCP tools for an agent Concord itself runs (over ACP), served inside the running Concord on the agent's
 * gateway socket (agent-gateway.ts): the calls go to the live core, as the member, with the member's live authority
 * and the approval policy of the turn it is in; approvals are put to the human by the member's host; a report's
 * default artifact is the head of the tree the agent works in. The agent's tool calls are recorded by the ACP turn
 * (the agent reports them), so nothing is recorded here; notices go out with the next tool result (member-binding.ts).
 */
import type { Harness } from '../../harness/harness'
import { stricterPolicy, type ApprovalPolicy } from '../../harness/members/approval-policy'
import type { HarnessToolContext } from '../tools/harness-tools'
import { memberBinding, type AgentTurnState } from './member-binding'
import type { McpBinding } from './server'

export type { AgentTurnState } from './member-binding'

export interface AppBindingEnv {
  harness: Harness
  workspaceId: string
  memberId: string
  call: HarnessToolContext['call']
  /** The turn the agent is in, else the one it was last in; null before its first. */
  turn(): AgentTurnState | null
  /** Puts a call to the human on the member's open turn (Runtime.approveExternal); null when no turn of it runs. */
  approve(name: string, argumentsText: string): Promise<boolean | null>
  /** Queues a message from this member, carrying the sender's approval policy (it cannot be laundered). */
  message(to: string, text: string, approval: ApprovalPolicy): void
}

export function appBinding(env: AppBindingEnv): McpBinding {
  const ctx = () => env.harness.ctx(env.workspaceId)
  // The stricter of the member's own and its turn's (approval-policy.ts): `sandboxed` must not read as `auto`.
  const approval = (m: { approval: ApprovalPolicy }) => stricterPolicy(m.approval, env.turn()?.approval)
  const binding: McpBinding = memberBinding({
    ctx,
    memberId: env.memberId,
    call: env.call,
    repoPath: () => env.harness.workspace(env.workspaceId).repoPath,
    turn: () => env.turn(),
    approval,
    rules: true,
    message: (to, text) => env.message(to, text, binding.approval),
    ask: (name, argumentsText) => env.approve(name, argumentsText),
    refusal: ', and no turn of this member is running to ask in; ask in Concord',
    record: null,
  })
  return binding
}
