/** GitHub Copilot CLI in its ACP mode. */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const copilot: AgentPreset = {
  ...agentKindInfo.copilot,
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
  // Measured with 1.0.102 (acp-copilot-ask): under ask it sends session/request_permission before its create and edit
  // tools write (the file is written once allowed; a denial leaves it unchanged and Copilot tells its model "rejected").
  // Its MCP tools are named `concord-<tool>` (approval-policy.ts recognises them: they are not asked again). Every
  // tool_call it sent had a title (the step's name): "Creating <path>", "Editing <path>", "Viewing <path>", a
  // command's description or "Running command", "Searching for '…'", "Reading shell output", a subagent's
  // description, "concord-<tool>"; its permission request retitles the call ("Create file", "Edit file", a bare tool
  // name). No step of it was left without a name (views, greps, sql, shells, subagents and their commands, Concord's).
  //
  // What of the folder it applies, measured with 1.0.102 in a hostile repository: in any folder, .github/hooks/*.json
  // (sessionStart, userPromptSubmitted and preToolUse hooks ran), .github/agents (a custom agent's MCP server ran
  // when its `task` tool used that agent, unasked) and .github/lsp.json (its `lsp` tool, unasked, started the
  // repository's language server); in a folder its home trusts (a user's own Copilot may trust the checkout), also the
  // hooks of .github/copilot/settings.json and settings.local.json and of .claude/settings.json, and .mcp.json's
  // servers (.github/mcp.json is documented too). So they are hidden. AGENTS.md, .github/copilot-instructions.md and
  // skills (a skill's allowed-tools did not spare a command the question) stay visible.
  workspaceConfig: [
    '.github/hooks',
    '.github/agents',
    '.github/lsp.json',
    '.github/copilot',
    '.github/mcp.json',
    '.mcp.json',
    '.claude/settings.json',
    '.claude/settings.local.json',
  ],
}
