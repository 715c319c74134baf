/** A member of the team and its provider (a model or an ACP agent), and a team copied from another workspace. */
import type { AgentPreset, ApprovalPolicy, ApprovalRule, Authority, ProviderKind } from './inputs'
import type { z } from 'zod'
import type { Runner } from '../runners'

export interface ModelMemberProvider {
  kind: z.infer<typeof ProviderKind>
  model: string
  baseURL: string | null
  /** On: a task in progress flagged needs_adjustment stops its running command; off, it hears after the command ends. */
  interruptOnAdjustment: boolean
  hasKey: boolean
}

export interface AcpMemberProvider {
  kind: 'acp'
  /** The agent preset, so lists that show a member's model show which agent it is. */
  model: string
  baseURL: null
  agent: z.infer<typeof AgentPreset>
  command: string | null
  args: string[]
  env: Record<string, string>
  /** The variable the stored key is set in, as the member names it; null: the preset's own (none for a custom agent). */
  keyVariable: string | null
  isolatedHome: boolean
  interruptOnAdjustment: boolean
  turnTimeoutSeconds: number
  hasKey: boolean
}

export type MemberProvider = ModelMemberProvider | AcpMemberProvider

export interface Member {
  id: string
  workspaceId: string
  name: string
  role: string
  authority: z.infer<typeof Authority>
  instructions: string
  provider: MemberProvider | null
  approval: z.infer<typeof ApprovalPolicy>
  maxSteps: number
  /** Plan every N steps (0: never). */
  planningInterval: number
  /** Its commands may use the network; off by default. */
  network: boolean
  /** The repository's MCP servers (`.mcp.json`, by name) it does not get. */
  mcpOff: string[]
  /** Where it runs: this machine, an SSH host or a container; null, the workspace's default runner (defaultRunner). */
  runner: Runner | null
  /** Set while archived (members.archive): left out of lists. */
  archivedAt?: string | null
  createdAt: string
  updatedAt: string
}

/** Another workspace whose team can be copied into this one (members.teams). */
export interface TeamSource {
  workspaceId: string
  /** The workspace's name, as the offer says it: "Use the team of <name>". */
  name: string
  members: { name: string; role: string; provider: string | null }[]
  /** Its approval rules, the members' and the team's. */
  rules: number
}

/** members.copyTeam: the members made in this workspace and the approval rules they brought. */
export interface CopiedTeam {
  members: Member[]
  rules: ApprovalRule[]
}

/** members.mcpServers: the repository's MCP servers as one member's settings list them. */
export interface MemberMcpServers {
  /** The stdio servers of the tree's `.mcp.json`, in the file's order. */
  servers: { name: string; command: string; args: string[]; on: boolean }[]
  /** Entries (or the file) left out, each with a stable code (mcp_config_invalid, mcp_server_not_stdio, …). */
  problems: { code: string; server?: string; message: string }[]
}
