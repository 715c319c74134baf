/** Codex through its ACP adapter (codex-acp). */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

/** A TOML inline value (JSON strings are valid TOML basic strings). */
const toml = (v: unknown): string =>
  typeof v === 'string'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(toml).join(', ')}]`
      : `{${Object.entries(v as object)
          .map(([k, x]) => `${k} = ${toml(x)}`)
          .join(', ')}}`

export const codex: AgentPreset = {
  ...agentKindInfo.codex,
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
}
