/**
 * An agent that does not take Concord's tools (GitHub Copilot CLI 1.0 rejects stdio MCP servers: "Rejecting
 * non-http/sse MCP server"): its session says so at its first turn, as a step the human sees, since without the tools
 * it cannot read the brief, hear notices with tool results or submit reports. Concord gives them over HTTP to an
 * agent that takes only that (concordOverHttp). Two signs an agent still does not take them: its `initialize` answer
 * says it takes no stdio MCP server (agentCapabilities.mcpCapabilities.stdio false) and no HTTP one, or, whatever it
 * says, nothing connected to the member's MCP gateway during the first turn of a new agent process.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk'
import type { McpGateway } from '../mcp/agent-gateway'
import type { AgentPreset } from './agents/agent-preset'

/** How long after its first turn an agent may still be connecting its MCP servers (some start them lazily). */
const LATE_CONNECT_MS = 1_500

type McpCapabilities = (Record<string, unknown> & { _meta?: Record<string, unknown> | null }) | undefined
const mcpCapabilities = (init: InitializeResponse | null) => init?.agentCapabilities?.mcpCapabilities as McpCapabilities

/** Whether the agent's capabilities say it takes no stdio MCP server (ACP makes stdio the baseline; some refuse it). */
function declinesStdio(init: InitializeResponse | null): boolean {
  const mcp = mcpCapabilities(init)
  return mcp?.stdio === false || mcp?._meta?.stdio === false
}

/**
 * Whether Concord's tools go to the agent over HTTP (http-gateway.ts) rather than stdio: it takes HTTP MCP servers
 * and either says it takes no stdio one, or its preset knows it rejects them without saying so (`mcpOverHttp`:
 * Copilot CLI 1.0 declares {http, sse} and leaves stdio, ACP's baseline, unsaid).
 */
export function concordOverHttp(init: InitializeResponse | null, preset: Pick<AgentPreset, 'mcpOverHttp'>): boolean {
  return mcpCapabilities(init)?.http === true && (declinesStdio(init) || preset.mcpOverHttp === true)
}

/** Whether the agent's capabilities leave Concord no way to give it its tools: no stdio server, and no HTTP one. */
export function declinesConcordMcp(init: InitializeResponse | null): boolean {
  return declinesStdio(init) && mcpCapabilities(init)?.http !== true
}

const consequence =
  'Concord\'s tools (server "concord": the brief, decisions, notices with tool results, reports) do not reach it in this session: it works from the brief in each prompt and cannot submit reports or change tasks itself.'

/** The notice when the agent's capabilities decline stdio MCP servers and do not take HTTP ones either. */
export function declinedByCapabilities(label: string): string {
  const ways = 'Concord serves its tools to agents over stdio, or over HTTP to those that take HTTP MCP servers.'
  return `${label} says it does not take stdio MCP servers (its ACP capabilities), nor HTTP ones. ${ways} ${consequence}`
}

/** The notice when nothing connected to Concord's tools during the agent's first turn; null when it did. */
export async function notConnectedAfterTurn(
  started: { gateway: McpGateway; mcpConnectionsBefore: number },
  label: string,
): Promise<string | null> {
  if (await started.gateway.connectedSince(started.mcpConnectionsBefore, LATE_CONNECT_MS)) return null
  return `${label} did not connect to Concord's tools during its first turn. ${consequence} Some agents take only HTTP MCP servers without saying so in their capabilities (GitHub Copilot CLI as a custom command: its own agent kind gets them over HTTP) or have MCP servers turned off in their own settings.`
}
