/**
 * The repository's MCP servers for an ACP turn: Concord starts the enabled servers of the tree's `.mcp.json` itself,
 * exactly as for a built-in member (repo-mcp/servers.ts: the member's sandbox, the tree as folder, `${VAR}` expansion
 * from the member's command environment, off per member), and offers each to the agent through the member's gateway
 * under the server's own name: over stdio (the gateway's proxy) or over HTTP (a path per server), as the agent takes
 * Concord's own tools. Each call then goes through the member's approval policy in Concord (served-tools.ts), whether
 * or not the agent asks; the servers stop when the turn ends.
 */
import type { McpServer } from '@agentclientprotocol/sdk'
import type { RepoToolRef } from '../../harness/members/approval-policy'
import { mcpOffOf } from '../../harness/members/member-mcp'
import type { SandboxPolicy } from '../../platform/sandbox-policy'
import type { MemberHost } from '../member-host'
import { MCP_SERVER_NAME } from '../mcp/tool-names'
import { startRepoMcp } from '../repo-mcp/servers'
import type { StartedAgent } from './agent-start'
import { concordOverHttp, declinesConcordMcp } from './declined-tools'
import { agentPresets } from './presets'
import type { AcpTurnEnv } from './turn-env'
import { remoteMcpEntry, remoteSocket } from '../runner/remote-agent'

export interface TurnRepoMcp {
  /** The entries for session/new and session/load. */
  entries: McpServer[]
  /** The tools served, for recognising the agent's own permission requests for them (acp-updates.ts). */
  tools: RepoToolRef[]
  /** What the session should say (servers left out or failed), as today's built-in turns do. */
  notices: string[]
  close(): Promise<void>
}

/** Starts the servers for the turn and serves them on the member's gateway until `close`. */
export async function turnRepoMcp(
  env: AcpTurnEnv,
  host: MemberHost,
  started: StartedAgent,
  policy: SandboxPolicy,
): Promise<TurnRepoMcp> {
  const session = await startRepoMcp(env.workspaceRoot, policy, mcpOffOf(env.member))
  const close = env.agents.serveRepoMcp(host.memberId, session)
  const { init } = started.agent
  const overHttp = concordOverHttp(init, agentPresets[env.member.agent!])
  const entries: McpServer[] = []
  const tools: RepoToolRef[] = []
  const notices = [...session.notices]
  try {
    for (const [server, served] of session.servers) {
      if (server === MCP_SERVER_NAME) {
        notices.push(
          `The MCP server "${server}" of .mcp.json is left out: its name is Concord's own server's. (mcp_server_invalid)`,
        )
        continue
      }
      if (declinesConcordMcp(init)) continue
      const remote = env.remote?.place
      entries.push(
        overHttp
          ? await started.gateway.httpEntry(server, true)
          : remote
            ? remoteMcpEntry(
                started.gateway.serverEntry(server, true),
                remoteSocket(remote, env.ctx.wsId, host.memberId),
              )
            : started.gateway.serverEntry(server, true),
      )
      tools.push(...served.map((t) => ({ server, tool: t.listed.name })))
    }
  } catch (err) {
    await close()
    throw err
  }
  return { entries, tools, notices, close }
}
