/**
 * Concord's harness tools as an MCP server named `concord`: the same tool definitions (zod input schemas,
 * run functions) as the built-in agent loop, acting as one member with that member's authority.
 * Where the calls land (a standalone process on the data folder, or the running app) is the binding's business.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ApiError } from '../../../../shared/errors'
import { harnessTools, toolAllowed, type HarnessToolContext } from '../tools/harness-tools'
import { ToolError } from '../../platform/tool-error'
import type { ToolDefinition } from '../tools/types'
import { MCP_SERVER_NAME, MCP_TOOL_NAMES } from './tool-names'
import {
  describeToolCall,
  needsHuman,
  type ApprovalPolicy,
  type PolicyRule,
} from '../../harness/members/approval-policy'

export { MCP_SERVER_NAME, MCP_TOOL_NAMES } from './tool-names'

export interface McpCall {
  name: string
  args: unknown
  argumentsText: string
}

export interface McpBinding {
  authority: HarnessToolContext['authority']
  approval: ApprovalPolicy
  /** The member's approval rules and the team's (none: the policy alone decides). */
  rules?(): PolicyRule[]
  /** A fresh context for one call (the brief and notices as they are now). */
  context(call: McpCall): HarnessToolContext
  /** A call that needs approval under `ask`: resolves true to run it. */
  approve(call: McpCall): Promise<boolean>
  /** Text appended to a tool's result (notices queued since the member's last step). */
  afterCall?(call: McpCall, ok: boolean): string
  /** Every finished call, for the member's session (standalone records it; the app sees it through ACP). */
  record?(call: McpCall, text: string, ok: boolean): void
}

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError: true } : {}),
})

export function mcpTools(authority: HarnessToolContext['authority']): ToolDefinition<unknown, HarnessToolContext>[] {
  const names = new Set<string>(MCP_TOOL_NAMES)
  return (harnessTools() as ToolDefinition<unknown, HarnessToolContext>[]).filter(
    (t) => names.has(t.name) && toolAllowed(t.name, authority),
  )
}

export function createMcpServer(binding: McpBinding, version = '0.1.0'): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version })
  for (const tool of mcpTools(binding.authority)) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.args as never }, (async (
      args: unknown,
    ) => {
      const call: McpCall = { name: tool.name, args, argumentsText: JSON.stringify(args ?? {}) }
      const finish = (t: string, ok: boolean) => {
        binding.record?.(call, t, ok)
        const extra = binding.afterCall?.(call, ok) ?? ''
        return text(extra ? `${t}\n\n${extra}` : t, !ok)
      }
      const needsApproval = typeof tool.needsApproval === 'function' ? tool.needsApproval(args) : tool.needsApproval
      try {
        // The one policy decision (approval-policy.ts); Concord's MCP tools never touch files, so the sandbox state does not matter.
        const answer = needsHuman(
          binding.approval,
          binding.rules?.() ?? [],
          describeToolCall(tool.name, args, needsApproval),
          { available: true },
        )
        if (answer.deny) return finish(`error (denied_by_rule): this call was ${answer.why}; it did not run.`, false)
        if (answer.ask && !(await binding.approve(call))) {
          return finish('The human denied this call; do not retry it unchanged.', false)
        }
        return finish(await tool.run(args, binding.context(call)), true)
      } catch (err) {
        if (err instanceof ToolError || err instanceof ApiError)
          return finish(`error (${err.code}): ${err.message}`, false)
        const e = err as { code?: string; message?: string }
        return finish(`error${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`, false)
      }
    }) as never)
  }
  return server
}
