/**
 * The repository's MCP servers as a member's settings list them (members.mcpServers): the stdio servers of the
 * `.mcp.json` in the workspace's folder, each on unless the member turned it off (members.mcp_off), and the entries
 * left out with their codes.
 */
import type { MemberMcpServers } from '../../../../shared/schemas'
import type { Ctx } from '../context'
import { memberRowOf } from '../context'
import type { Harness } from '../harness'
import type { MemberRow } from '../rows'
import { readRepoMcpConfig } from './mcp-config'

/** The names of the repository's MCP servers the member does not get. */
export const mcpOffOf = (member: Pick<MemberRow, 'mcp_off'>): ReadonlySet<string> =>
  new Set(JSON.parse(member.mcp_off) as string[])

export function memberMcpServers(h: Harness, ctx: Ctx, memberId: string): MemberMcpServers {
  const member = ctx.store.members.get(memberRowOf(ctx, memberId, 'memberId'))!
  const off = mcpOffOf(member)
  const config = readRepoMcpConfig(h.registry.byId(ctx.wsId)!.repo_path)
  return {
    servers: config.servers.map((s) => ({ name: s.name, command: s.command, args: s.args, on: !off.has(s.name) })),
    problems: config.problems,
  }
}
