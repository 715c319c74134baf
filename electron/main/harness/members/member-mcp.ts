/** The names of the repository's MCP servers (members.mcp_off) a member turned off, as a set. */
import type { MemberRow } from '../rows'

/** The names of the repository's MCP servers the member does not get. */
export const mcpOffOf = (member: Pick<MemberRow, 'mcp_off'>): ReadonlySet<string> =>
  new Set(JSON.parse(member.mcp_off) as string[])
