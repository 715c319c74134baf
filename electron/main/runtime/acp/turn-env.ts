/** What an ACP turn needs of the runtime: its own module, so that the turn's parts (session, updates, agent start) and
 * the prompt loop that uses them import it without importing each other in a circle. */
import type { AppBindingEnv } from '../mcp/app-binding'
import type { Ctx } from '../../harness/context'
import type { MemberRow } from '../../harness/rows'
import type { SandboxPolicy } from '../../platform/sandbox-policy'
import type { StepSink } from '../step-writer'
import type { AgentPool } from './agent-process'
import type { RemoteTurn } from '../runner/remote-turn'

export interface AcpTurnEnv {
  ctx: Ctx
  member: MemberRow
  /** The folder the agent works in (the task's worktree once worktrees exist). */
  workspaceRoot: string
  dataDir: string
  sandbox?: SandboxPolicy
  /** The turn plans a plan-first task: the agent's plan mode where it offers one (acp-session.ts planMode). */
  planning?: boolean
  approval: MemberRow['approval']
  agents: AgentPool
  /** What Concord's MCP tools for this agent need of the runtime (the turn's tree and policy are added here). */
  mcp: Omit<AppBindingEnv, 'turn'>
  apiKey?: string
  turnTimeoutMs?: number
  emitStep: StepSink
  emitDelta(stepId: number, text: string): void
  /** The member runs on a runner: the turn's tree there, where the agent works (runner/remote-turn.ts). */
  remote?: RemoteTurn
}
