/**
 * Concord's harness tools as an MCP server named `concord`: the same tool definitions (zod input schemas,
 * run functions) as the built-in agent loop, acting as one member with that member's authority.
 * Where the calls land (a standalone process on the data folder, or the running app) is the binding's business.
 *
 * The tools are served through the SDK's protocol handlers (`server.server`), not `registerTool`: that lists
 * every zod schema as draft-07, which a client that loads only JSON Schema 2020-12 (the MCP spec's default)
 * rejects, and answers bad arguments in its own words, outside the member's session. Here the listed schema
 * is the one the built-in loop shows its model, declared 2020-12, and the arguments go through that loop's parse.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ApiError } from '../../../../shared/errors'
import { harnessTools, toolAllowed, type HarnessToolContext } from '../tools/harness-tools'
import { ToolError } from '../../platform/tool-error'
import { parseArgs } from '../tools/tool-helpers'
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
  /** Before a call runs (after its approval): what its tree needs first. */
  prepare?(): Promise<void>
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

/** The dialect every listed input schema declares: JSON Schema 2020-12, the MCP spec's default. */
export const MCP_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema'

/** A tool's input schema as listed over MCP: the built-in loop's (every object closed), with its dialect named. */
export function mcpInputSchema(
  tool: ToolDefinition<unknown, HarnessToolContext>,
): { type: 'object' } & Record<string, unknown> {
  return { $schema: MCP_SCHEMA_DIALECT, ...tool.parameters, type: 'object' }
}

export function createMcpServer(binding: McpBinding, version = '0.1.0'): McpServer {
  const mcp = new McpServer({ name: MCP_SERVER_NAME, version }, { capabilities: { tools: {} } })
  const server = mcp.server
  const tools = new Map(mcpTools(binding.authority).map((t) => [t.name, t]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: mcpInputSchema(t),
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name)
    const raw = request.params.arguments ?? {}
    const call: McpCall = { name: request.params.name, args: raw, argumentsText: JSON.stringify(raw) }
    const finish = (t: string, ok: boolean) => {
      binding.record?.(call, t, ok)
      const extra = binding.afterCall?.(call, ok) ?? ''
      return text(extra ? `${t}\n\n${extra}` : t, !ok)
    }
    if (!tool)
      return text(
        `error (unknown_tool): Concord has no tool ${JSON.stringify(request.params.name)} for this member.`,
        true,
      )
    try {
      // The built-in loop's parse: an argument the listed (closed) schema does not name is refused, not dropped.
      const args = parseArgs(tool.args, raw, tool.name)
      call.args = args
      call.argumentsText = JSON.stringify(args)
      const needsApproval = typeof tool.needsApproval === 'function' ? tool.needsApproval(args) : tool.needsApproval
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
      await binding.prepare?.()
      return finish(await tool.run(args, binding.context(call)), true)
    } catch (err) {
      if (err instanceof ToolError || err instanceof ApiError)
        return finish(`error (${err.code}): ${err.message}`, false)
      const e = err as { code?: string; message?: string }
      return finish(`error${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`, false)
    }
  })
  return mcp
}
