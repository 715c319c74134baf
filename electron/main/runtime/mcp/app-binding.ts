/**
 * Concord's MCP tools for an agent Concord itself runs (over ACP), served inside the running Concord on the agent's
 * gateway socket (agent-gateway.ts): the calls go to the live core, as the member, with the member's live authority
 * and the approval policy of the turn it is in; approvals are put to the human by the member's host; a report's
 * default artifact is the head of the tree the agent works in. The agent's tool calls are recorded by the ACP turn
 * (the agent reports them), so nothing is recorded here; notices go out with the next tool result (member-binding.ts).
 */
import { memberRowOf } from '../../harness/context'
import type { Harness } from '../../harness/harness'
import { buildBrief } from '../brief'
import type { HarnessToolContext } from '../tools/harness-tools'
import { ToolError } from '../../platform/tool-error'
import type { SandboxPolicy } from '../../platform/sandbox-policy'
import { takeNotices } from './member-binding'
import type { McpBinding } from './server'
import { stricterPolicy, type ApprovalPolicy } from '../../harness/members/approval-policy'
import { rulesFor } from '../../harness/members/approval-rules'

/** The turn an ACP agent is in (or was last in): the tree it works in and the policy that applies. */
export interface AgentTurnState {
  /** The turn's tree: the task's worktree, a read-only checkout, or the repository. */
  root: string
  approval: ApprovalPolicy
  sandbox?: SandboxPolicy
  /** Aborted when the turn is interrupted. */
  signal: AbortSignal
}

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
  const rowId = memberRowOf(ctx(), env.memberId, 'memberId')
  const member = () => {
    const row = ctx().store.members.get(rowId)
    if (!row) throw new ToolError('not_found', `member ${env.memberId} no longer exists`)
    return row
  }
  // The stricter of the member's own and its turn's (approval-policy.ts): `sandboxed` must not read as `auto`.
  const approval = (): ApprovalPolicy => stricterPolicy(member().approval, env.turn()?.approval)
  return {
    authority: member().authority,
    get approval() {
      return approval()
    },
    rules: () => rulesFor(ctx(), rowId),
    context: (): HarnessToolContext => {
      const turn = env.turn()
      return {
        workspaceRoot: turn?.root ?? env.harness.workspace(env.workspaceId).repoPath,
        signal: turn?.signal ?? new AbortController().signal,
        ...(turn?.sandbox ? { sandbox: turn.sandbox } : {}),
        workspaceId: env.workspaceId,
        memberId: env.memberId,
        authority: member().authority,
        call: env.call,
        // Rebuilt per call: the basis of a report is the decisions as they are now.
        brief: () => buildBrief(ctx(), member(), []),
        stepText: () => null,
        message: async (to, text) => env.message(to, text, approval()),
        delegate: async () => {
          throw new ToolError('unsupported', 'delegate is not offered over MCP')
        },
        sourceStepId: '',
        endTurn: () => {},
      }
    },
    approve: async (c) => {
      const allowed = await env.approve(c.name, c.argumentsText)
      if (allowed !== null) return allowed
      throw new ToolError(
        'approval_required',
        `${c.name} needs the human's approval under this member's policy (ask), and no turn of this member is running to ask in; ask in Concord`,
      )
    },
    // The ACP turn records the delivered notices once the tool call's result reaches it (see takeNotices).
    afterCall: () => takeNotices(ctx(), rowId, null, false)?.text ?? '',
  }
}
