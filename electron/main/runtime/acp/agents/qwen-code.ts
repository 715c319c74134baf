/** Qwen Code in its ACP mode. */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const qwenCode: AgentPreset = {
  ...agentKindInfo['qwen-code'],
  // Qwen Code 0.24: --acp. Measured: without --approval-mode its `auto` mode has the model classify each tool call
  // (a model request of its own) instead of asking; `default` asks before every edit and command, and Concord
  // answers under the member's policy.
  args: ['--acp', '--approval-mode', 'default'],
  homeVariables: ['HOME', 'QWEN_HOME'],
  stateFiles: ['.qwen'],
  asksBeforeActing: true,
  survivesCancel: true,
  // Measured with 0.24: a server from session/new has its tools deferred (only named through tool_search), and its
  // tool calls each asked. Given through --mcp-config, Concord's tools are declared to the model (alwaysLoadTools)
  // and trusted (Concord applies the member's policy to them itself); the server's variables come from Qwen Code's
  // own environment, so the gateway's token is not on its command line (`ps`).
  mcpArgs: (server) => ({
    args: [
      '--mcp-config',
      JSON.stringify({
        mcpServers: {
          [server.name]: { command: server.command, args: server.args, trust: true, alwaysLoadTools: true },
        },
      }),
    ],
    env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
  }),
  // Measured with 0.24: MCP servers connect in the background, so the first turn's model request declared none of
  // Concord's tools; with the legacy blocking discovery the session opens with them.
  env: { QWEN_CODE_LEGACY_MCP_BLOCKING: '1' },
  // Qwen Code 0.24 applies <folder>/.qwen (settings.json: hooks, mcpServers; .env), <folder>/.env and the project's
  // .mcp.json: measured, a hook of the repository's settings ran at every prompt (its MCP servers wait for an approval
  // Qwen Code asks in its own UI). A hostile repository could run programs, so they are hidden.
  workspaceConfig: ['.qwen', '.env', '.mcp.json'],
}
