/**
 * The repository's MCP servers as a member's settings list them (members.mcpServers): the stdio servers of the
 * `.mcp.json` of the member's tree, the one its next turn works in, each on unless the member turned it off
 * (members.mcp_off), and the entries left out with their codes.
 */
import { existsSync } from 'node:fs'
import type { MemberMcpServers } from '../../../../shared/schemas'
import { fileAtRef } from '../../repo/git-repo'
import type { Ctx } from '../context'
import { memberRowOf } from '../context'
import type { Harness } from '../harness'
import { MCP_CONFIG_FILE, parseRepoMcpConfig, readRepoMcpConfig, type RepoMcpConfig } from '../members/mcp-config'
import { mcpOffOf } from '../members/member-mcp'
import { workspaceSettings } from './workspace-settings'

export async function memberMcpServers(h: Harness, ctx: Ctx, memberId: string): Promise<MemberMcpServers> {
  const member = ctx.store.members.get(memberRowOf(ctx, memberId, 'memberId'))!
  const off = mcpOffOf(member)
  const config = await memberTreeConfig(h, ctx, member.id)
  return {
    servers: config.servers.map((s) => ({ name: s.name, command: s.command, args: s.args, on: !off.has(s.name) })),
    problems: config.problems,
  }
}

/**
 * The `.mcp.json` of the tree the member's next turn works in (turn-trees.ts): in a workspace of worktrees, its one
 * task in progress's worktree, else the base branch as committed (a new task tree, or the read-only checkout of a
 * turn without a task, starts from it); in a shared workspace, the user's checkout.
 */
async function memberTreeConfig(h: Harness, ctx: Ctx, memberRowId: number): Promise<RepoMcpConfig> {
  const repo = h.registry.byId(ctx.wsId)!.repo_path
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) return readRepoMcpConfig(repo)
  const active = ctx.store.tasks.inProgress(memberRowId)
  const own = active.length === 1 ? ctx.store.branches.get(active[0]!.id)?.worktree : null
  if (own && existsSync(own)) return readRepoMcpConfig(own)
  const text = await fileAtRef(repo, `refs/heads/${settings.baseBranch}`, MCP_CONFIG_FILE)
  return text === null ? { servers: [], problems: [] } : parseRepoMcpConfig(text)
}
