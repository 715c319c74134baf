/** opencode in its ACP mode (opencode acp; the npm package's bin is its native binary). */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const opencode: AgentPreset = {
  ...agentKindInfo.opencode,
  // opencode 1.18: `acp`. --pure: no external plugins (measured: without it, each start npm-installs
  // @opencode-ai/plugin into its configuration folder).
  args: ['acp', '--pure'],
  // Its configuration, data, state and cache are under the XDG folders of HOME (~/.config/opencode, ~/.local/share/
  // opencode, ~/.local/state/opencode, ~/.cache/opencode); Concord passes no XDG_* variable, so HOME is all of it.
  homeVariables: ['HOME'],
  stateFiles: ['.config/opencode', '.local/share/opencode', '.local/state/opencode', '.cache/opencode'],
  // Measured with 1.18.33: opencode's own default permissions allow everything, so it never sent a permission request
  // (it ran commands under `ask` without a question). With `ask` for edits, commands and fetches (OPENCODE_PERMISSION)
  // it sends session/request_permission before each, and Concord answers under the member's policy. MCP tools are not
  // asked: Concord's own and the repository's `.mcp.json` servers (served by Concord through the member's gateway,
  // repo-mcp-turn.ts) both reach it from session/new, and Concord applies the member's policy to their calls itself.
  asksBeforeActing: true,
  survivesCancel: true,
  // Offline, as Concord runs it against the user's endpoint: no self-update, and no fetch of the models.dev catalogue
  // (measured: each start tried models.opencode.ai twice and waited for it; the provider in OPENCODE_CONFIG_CONTENT
  // names its own models).
  env: {
    OPENCODE_PERMISSION: JSON.stringify({ edit: 'ask', bash: 'ask', webfetch: 'ask' }),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
  },
  // Measured with 1.18.33: a session loaded with session/load keeps the folder it was opened in; after the member
  // moved to a task's tree its next prompt failed ("OpenCode service failure": the old tree was gone).
  sessionKeepsFolder: true,
  // Measured with 1.18.33: opencode applies the folder's opencode.json / opencode.jsonc (MCP servers it starts,
  // formatters and language servers it runs after an edit, plugins) and <folder>/.opencode (plugins: JavaScript it
  // loads at start, even with --pure and OPENCODE_DISABLE_PROJECT_CONFIG; tools, agents, commands). A hostile
  // repository's MCP server and plugin each ran at start, so they are hidden. AGENTS.md (instructions only) is read.
  workspaceConfig: ['opencode.json', 'opencode.jsonc', '.opencode'],
}
