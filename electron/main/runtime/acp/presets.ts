/**
 * The agents Concord can drive over ACP: how each is started, what installs it, and which variables carry its
 * key and its state. A preset's command is looked up in the project's own node_modules first (the pinned,
 * tested version), then on PATH.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { McpServerStdio } from '@agentclientprotocol/sdk'
import { agentKindInfo, type AgentKind, type AgentKindInfo } from '../../../../shared/agent-kinds'
import type { MemberRow } from '../../store/members-repo'
import { MCP_TOOL_NAMES } from '../mcp/tool-names'

export type { AgentKind }

/** An agent's label, install line and key variable (shared/agent-kinds.ts), and how Concord runs it. */
export interface AgentPreset extends AgentKindInfo {
  /** Command on PATH, and its arguments. */
  command: string
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
   * `_meta` of session/new and session/load: how the agent is told to run Concord's own tools without asking (Concord
   * applies the member's policy to them itself).
   */
  sessionMeta?(serverName: string): Record<string, unknown>
  /**
   * Arguments that fit the agent's own sandbox to the one it runs in: inside Concord's (which confines it to its
   * tree), a sandbox of its own cannot start; without Concord's, the agent keeps its own.
   */
  sandboxArgs?(where: { concordSandbox: boolean; readOnly: boolean }): string[]
  /** Variables the agent needs to work under Concord (the member's own env overrides them). */
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
}

/** A TOML inline value (JSON strings are valid TOML basic strings). */
const toml = (v: unknown): string =>
  typeof v === 'string'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(toml).join(', ')}]`
      : `{${Object.entries(v as object)
          .map(([k, x]) => `${k} = ${toml(x)}`)
          .join(', ')}}`

export const agentPresets: Record<AgentKind, AgentPreset> = {
  'claude-code': {
    ...agentKindInfo['claude-code'],
    command: 'claude-agent-acp',
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
  },
  codex: {
    ...agentKindInfo.codex,
    command: 'codex-acp',
    args: [],
    localPackage: { name: '@zed-industries/codex-acp', bin: 'bin/codex-acp.js' },
    homeVariables: ['HOME', 'CODEX_HOME'],
    asksBeforeActing: true,
    stateFiles: ['.codex'],
    survivesCancel: true,
    // Measured with codex-acp 0.16: a server from session/new gets an approval request per tool call. Concord's
    // own server applies the member's policy itself, so Codex is told to approve its tools. The server's variables
    // come from Codex's own environment (env_vars), so the gateway's token is not on its command line (`ps`).
    mcpArgs: (server) => ({
      args: [
        '-c',
        `mcp_servers.${server.name}=${toml({
          command: server.command,
          args: server.args,
          env_vars: server.env.map((e) => e.name),
          default_tools_approval_mode: 'approve',
        })}`,
      ],
      env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
    }),
    // Measured with codex-acp 0.16: inside Concord's bubblewrap, Codex's own cannot start ("bwrap: setting up uid
    // map: Operation not permitted"), so each command failed once and was retried with an escalation. Inside
    // Concord's sandbox Codex runs unsandboxed (Concord's confines it to its tree); without one it keeps its own
    // (writable tree, or read-only for a read-only checkout). Either way it asks before a command it does not know
    // to be safe (approval_policy untrusted), and Concord answers under the member's policy.
    sandboxArgs: ({ concordSandbox, readOnly }) => [
      '-c',
      `sandbox_mode=${toml(concordSandbox ? 'danger-full-access' : readOnly ? 'read-only' : 'workspace-write')}`,
      '-c',
      `approval_policy=${toml('untrusted')}`,
    ],
  },
  gemini: {
    ...agentKindInfo.gemini,
    command: 'gemini',
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
  },
  custom: {
    ...agentKindInfo.custom,
    // The editor's 'Custom command' is no name for the program in a message: it is the ACP agent.
    label: 'The ACP agent',
    command: '',
    args: [],
    homeVariables: ['HOME'],
    stateFiles: [],
  },
}

const require = createRequire(import.meta.url)

function localBin(pkg: { name: string; bin: string }): string | null {
  try {
    const file = join(dirname(require.resolve(`${pkg.name}/package.json`)), pkg.bin)
    return existsSync(file) ? file : null
  } catch {
    return null
  }
}

/** The program and arguments to start a member's agent with (`fixed`: Concord's, before the member's own). */
export function agentCommand(
  member: Pick<MemberRow, 'agent' | 'agent_command' | 'agent_args'>,
  fixed: string[] = [],
): { command: string; args: string[] } {
  const preset = agentPresets[member.agent!]
  const extra = JSON.parse(member.agent_args) as string[]
  if (member.agent_command) return { command: member.agent_command, args: [...fixed, ...extra] }
  const local = preset.localPackage && localBin(preset.localPackage)
  if (local) return { command: process.execPath, args: [local, ...preset.args, ...fixed, ...extra] }
  return { command: preset.command, args: [...preset.args, ...fixed, ...extra] }
}

/** What a person reads when the agent's program is not there. */
export function notInstalledText(agent: AgentKind, command: string): string {
  const preset = agentPresets[agent]
  return preset.install
    ? `${preset.label} is not installed: ${preset.install}`
    : `The ACP agent's command '${command}' was not found: check the command in the member's settings`
}
