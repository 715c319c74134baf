/** Claude Code through its ACP adapter (claude-agent-acp). */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import { MCP_TOOL_NAMES } from '../../mcp/tool-names'
import type { AgentPreset } from './agent-preset'

export const claudeCode: AgentPreset = {
  ...agentKindInfo['claude-code'],
  args: [],
  localPackage: { name: '@zed-industries/claude-agent-acp', bin: 'dist/index.js' },
  homeVariables: ['HOME', 'CLAUDE_CONFIG_DIR'],
  asksBeforeActing: true,
  stateFiles: ['.claude', '.claude.json'],
  // claude-agent-acp 0.23.1 passes _meta.claudeCode.options to the Claude Agent SDK: allowedTools are permission
  // rules, so Concord's own tools run without a permission request (Concord applies the member's policy to them).
  sessionMeta: (server) => ({
    claudeCode: { options: { allowedTools: MCP_TOOL_NAMES.map((t) => `mcp__${server}__${t}`) } },
  }),
}
