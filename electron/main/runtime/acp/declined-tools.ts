/**
 * An agent that does not take Concord's tools (GitHub Copilot CLI 1.0 rejects stdio MCP servers: "Rejecting
 * non-http/sse MCP server"): its session says so at its first turn, as a step the human sees, since without the tools
 * it cannot read the brief, hear notices with tool results or submit reports. Two signs: the agent's `initialize`
 * answer says it takes no stdio MCP server (agentCapabilities.mcpCapabilities.stdio false), or, whatever it says,
 * nothing connected to the member's MCP gateway during the first turn of a new agent process.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk'
import type { StartedAgent } from './agent-start'

/** How long after its first turn an agent may still be connecting its MCP servers (some start them lazily). */
const LATE_CONNECT_MS = 1_500

/** Whether the agent's capabilities say it takes no stdio MCP server (ACP makes stdio the baseline; some refuse it). */
export function declinesStdioMcp(init: InitializeResponse | null): boolean {
  const mcp = init?.agentCapabilities?.mcpCapabilities as
    (Record<string, unknown> & { _meta?: Record<string, unknown> | null }) | undefined
  return mcp?.stdio === false || mcp?._meta?.stdio === false
}

const consequence =
  'Concord\'s tools (server "concord": the brief, decisions, notices with tool results, reports) do not reach it in this session: it works from the brief in each prompt and cannot submit reports or change tasks itself.'

/** The notice when the agent's capabilities decline stdio MCP servers. */
export function declinedByCapabilities(label: string): string {
  const http = 'It takes MCP servers only over HTTP or SSE; Concord serves its tools to agents over stdio.'
  return `${label} says it does not take stdio MCP servers (its ACP capabilities). ${http} ${consequence}`
}

/** The notice when nothing connected to Concord's tools during the agent's first turn; null when it did. */
export async function notConnectedAfterTurn(started: StartedAgent, label: string): Promise<string | null> {
  if (await started.gateway.connectedSince(started.mcpConnectionsBefore, LATE_CONNECT_MS)) return null
  return `${label} did not connect to Concord's tools during its first turn. ${consequence} Some agents accept only HTTP MCP servers (GitHub Copilot CLI) or have MCP servers turned off in their own settings.`
}
