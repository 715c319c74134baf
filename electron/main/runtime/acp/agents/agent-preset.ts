/** The shape of an agent's preset: what a person is shown of it (shared/agent-kinds.ts) and its quirks. */
import type { McpServerStdio } from '@agentclientprotocol/sdk'
import type { AgentKindInfo } from '../../../../../shared/agent-kinds'

/** An agent's label, install line and key variable (shared/agent-kinds.ts), and how Concord runs it. */
export interface AgentPreset extends AgentKindInfo {
  /** Its arguments (its command, on PATH, is shared/agent-kinds.ts's). */
  args: string[]
  /** A package in node_modules whose `bin` is the same program (run with this Node). */
  localPackage?: { name: string; bin: string }
  /** Variables pointing at the agent's state, set under the member's own folder when homes are isolated. */
  homeVariables: string[]
  /** Its state in the user's real home (used without an isolated home): writable inside the sandbox. */
  stateFiles: string[]
  /**
   * Arguments that give the agent Concord's MCP server through its own configuration instead of `session/new`
   * (where the agent would otherwise ask the human before every Concord tool call), and the variables of the agent's
   * own environment the server's entry names (the gateway's token: in the environment, not on a command line).
   */
  mcpArgs?(server: McpServerStdio): { args: string[]; env: Record<string, string> }
  /**
   * The agent rejects stdio MCP servers although its capabilities leave stdio (ACP's baseline) unsaid: Concord's tools
   * go to it over HTTP (declined-tools.ts concordOverHttp) when it declares HTTP.
   */
  mcpOverHttp?: boolean
  /**
   * `_meta` of session/new and session/load: how the agent is told to run Concord's own tools without asking (Concord
   * applies the member's policy to them itself).
   */
  sessionMeta?(serverName: string): Record<string, unknown>
  /**
   * Arguments that fit the agent's own sandbox to the one it runs in: inside Concord's (which confines it to its
   * tree), a sandbox of its own cannot start; without Concord's, the agent keeps its own.
   */
  sandboxArgs?(where: { concordSandbox: boolean; readOnly: boolean }): string[]
  /** Variables the agent needs to work under Concord (the member's own env overrides them, except policyEnv's). */
  env?: Record<string, string>
  /**
   * Files in the member's folder through which a repository would configure the agent itself (MCP servers, programs
   * it runs, its environment): hidden from the agent in the sandbox; without a sandbox, an agent whose folder has one
   * is not started.
   */
  workspaceConfig?: string[]
  /**
   * The agent sends a permission request before it edits a file or runs a command when it is not told to run them
   * (measured for each preset). Under the policy `ask`, an agent not known to ask (any custom agent: opencode 1.18
   * ran commands under `ask` without one) gets a read-only tree instead (acp-turn.ts askThroughSandbox).
   */
  asksBeforeActing?: boolean
  /** The process keeps answering in the same session after `session/cancel` (measured); otherwise it is restarted. */
  survivesCancel?: boolean
  /**
   * The agent answers `session/load` before it has replayed the session's history, so replayed `session/update`s
   * arrive after the answer, where they read as the next turn's reply (ACP has the replay come first). Such an
   * agent's session is not loaded: a new process opens a new session (the brief carries what Concord holds).
   */
  replaysAfterLoad?: boolean
  /**
   * The agent keeps working a loaded session in the folder the session was opened in, whatever `cwd` session/load
   * names: after the member's tree changed (a task's tree, a read-only one), its prompt fails. Such an agent's session
   * is not loaded either: a new process opens a new session in its tree (the brief carries what Concord holds).
   */
  sessionKeepsFolder?: boolean
}
