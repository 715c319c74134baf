/** What a built-in turn (agent-loop.ts) runs with: the member, its model, its tools and the policy of its calls. */
import type { Ctx } from '../harness/context'
import type { MemberRow } from '../harness/rows'
import type { CallSetting, PolicyRule, SandboxState } from '../harness/members/approval-policy'
import type { MemberHost } from './member-host'
import type { ModelProvider } from './providers/types'
import type { StepSink } from './step-writer'
import type { HarnessToolContext } from './tools/harness-tools'
import type { ToolDefinition } from './tools/types'

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
  /** What the session says at the turn's start (a repository MCP server left out, and why). */
  notices?: string[]
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
