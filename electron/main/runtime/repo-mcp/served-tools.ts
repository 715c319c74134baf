/**
 * One of the repository's MCP servers as an ACP agent reaches it: through the member's gateway (agent-gateway.ts, by
 * the server's own name), not started by the agent. Concord runs the server itself for the turn (servers.ts: in the
 * member's sandbox, the tree as its folder) and applies the member's approval policy to each call, the same decision
 * the built-in loop makes for `mcp__<server>__<tool>`: so `ask` asks in Concord whether or not the agent asks (opencode
 * does not ask for MCP tools), a denial is the agent's error result, and the tool did not run.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describeToolCall, needsHuman } from '../../harness/members/approval-policy'
import { sandboxStatus } from '../../platform/sandbox/status'
import { ToolError } from '../../platform/tool-error'
import type { McpBinding, McpCall } from '../mcp/server'
import { repoMcpToolName, type ServedTool } from './servers'

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError: true } : {}),
})

/**
 * The MCP server the agent sees as `server`: the tools of the running server of the member's turn (`live`: null when
 * no turn of the member runs, so the server is stopped), each call under the member's policy.
 */
export function createServedRepoMcp(binding: McpBinding, server: string, live: () => ServedTool[] | null): McpServer {
  const mcp = new McpServer({ name: server, version: '1' }, { capabilities: { tools: {} } })
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (live() ?? []).map((t) => t.listed) }))
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tools = live()
    if (!tools)
      return text(
        `error (mcp_server_stopped): the MCP server "${server}" runs only during a turn of this member; ask again in the next turn.`,
        true,
      )
    const tool = tools.find((t) => t.listed.name === request.params.name)
    if (!tool) return text(`error (unknown_tool): the MCP server "${server}" has no tool ${request.params.name}.`, true)
    const args = request.params.arguments ?? {}
    const call: McpCall = {
      name: repoMcpToolName(server, tool.listed.name),
      args,
      argumentsText: JSON.stringify(args),
    }
    try {
      const ctx = binding.context(call)
      const described = describeToolCall(call.name, args, true, {
        root: ctx.workspaceRoot,
        network: !!ctx.sandbox?.network,
      })
      const answer = needsHuman(binding.approval, binding.rules?.() ?? [], described, await sandboxStatus())
      if (answer.deny) return text(`error (denied_by_rule): this call was ${answer.why}; it did not run.`, true)
      if (answer.ask && !(await binding.approve(call)))
        return text('error (denied): the human denied this call; it did not run. Do not retry it unchanged.', true)
      return text(await tool.definition.run(args, ctx))
    } catch (err) {
      if (err instanceof ToolError) return text(`error (${err.code}): ${err.message}`, true)
      return text(`error: ${err instanceof Error ? err.message : String(err)}`, true)
    }
  })
  return mcp
}
