/** GitHub Copilot CLI in its ACP mode. */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const copilot: AgentPreset = {
  ...agentKindInfo.copilot,
  command: 'copilot',
  // Copilot CLI 1.0.102: --acp; no update check nor download of a newer version at each start.
  args: ['--acp', '--no-auto-update'],
  homeVariables: ['HOME', 'COPILOT_HOME'],
  stateFiles: ['.copilot'],
  // Measured with 1.0.102: its initialize answer declares mcpCapabilities {http, sse} and leaves stdio unsaid, yet a
  // stdio server of session/new is rejected ("Rejecting non-http/sse MCP server"): Concord's tools go over HTTP, and
  // so do the repository's `.mcp.json` servers (a path each on the member's HTTP gateway, repo-mcp-turn.ts).
  mcpOverHttp: true,
  // Measured with 1.0.102 (the shipped suite's ask check): a shell command waits on session/request_permission, runs
  // once allowed, and a denial reaches it; so `ask` goes through its requests, not a read-only tree.
  asksBeforeActing: true,
}
