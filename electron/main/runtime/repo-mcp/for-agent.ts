/**
 * The repository's MCP servers for an ACP agent: the enabled stdio servers of the tree's `.mcp.json` as session/new's
 * `mcpServers` (the agent starts them, in its own sandbox), their `${VAR}`s expanded from the agent's environment
 * (`vars`: secret-looking names never are, the agent's key variable among them), and the notices of those left out.
 */
import type { McpServerStdio } from '@agentclientprotocol/sdk'
import { readRepoMcpConfig } from '../../harness/members/mcp-config'

export function repoMcpForAgent(
  root: string,
  off: ReadonlySet<string>,
  vars: Readonly<Record<string, string>>,
): { servers: McpServerStdio[]; notices: string[] } {
  const config = readRepoMcpConfig(root, vars)
  return {
    servers: config.servers
      .filter((s) => !off.has(s.name))
      .map((s) => ({
        name: s.name,
        command: s.command,
        args: s.args,
        env: Object.entries(s.env).map(([name, value]) => ({ name, value })),
      })),
    notices: config.problems.map((p) => `${p.message} (${p.code})`),
  }
}
