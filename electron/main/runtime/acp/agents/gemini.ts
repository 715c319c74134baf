/** Gemini CLI in its ACP mode. */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const gemini: AgentPreset = {
  ...agentKindInfo.gemini,
  // Gemini CLI 0.61: --acp (--experimental-acp is deprecated).
  args: ['--acp'],
  localPackage: { name: '@google/gemini-cli', bin: 'bundle/gemini.js' },
  homeVariables: ['HOME', 'GEMINI_CLI_HOME'],
  asksBeforeActing: true,
  stateFiles: ['.gemini'],
  // Measured with 0.61: in a folder it does not trust, Gemini CLI starts no MCP server, Concord's included. The
  // member's folder is one the user opened in Concord; env GEMINI_CLI_TRUST_WORKSPACE=false opts out.
  env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' },
  // In a trusted folder Gemini CLI 0.61 applies <folder>/.gemini (settings.json: mcpServers, tools.discoveryCommand,
  // hooks; policies; .env, unfiltered) and <folder>/.env: a hostile repository could run programs or change the MCP
  // servers. Settings Concord could write to outrank them must be root's (system settings), so they are hidden.
  workspaceConfig: ['.gemini', '.env'],
  survivesCancel: true,
  // Measured with 0.61: its loadSession starts streamHistory without awaiting it and answers; on a loaded machine
  // the restarted agent's reply began with the replayed "Reported.Back again." of earlier turns.
  replaysAfterLoad: true,
}
