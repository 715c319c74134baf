/**
 * The repository's MCP servers for one built-in turn: each enabled stdio server of `.mcp.json` started in the member's
 * sandbox (the same policy as run_command: the tree as its folder and writable, scratch HOME, network per the member)
 * through the official MCP SDK's client, its tools offered to the model as `mcp__<server>__<tool>`, each call asking
 * like run_command (approval-policy.ts), and every process stopped when the turn ends. A server that does not start
 * or answer is left out with a notice; the turn goes on without it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { commandEnv } from '../../platform/command-env'
import { insideEnv, sandboxedSpawn } from '../../platform/sandbox/spawn'
import type { SandboxPolicy } from '../../platform/sandbox-policy'
import { ToolError } from '../../platform/tool-error'
import type { ToolDefinition } from '../tools/types'
import { readRepoMcpConfig, type RepoMcpServer } from '../../harness/members/mcp-config'

/** How long a server has to start and list its tools (npx may fetch a package first). */
const START_TIMEOUT_MS = 60_000
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const STDERR_TAIL = 2000

/** A server's tool as the server lists it (`listed`: its own name and schema), and as one of the member's tools. */
export interface ServedTool {
  listed: Tool
  definition: ToolDefinition
}

/**
 * The running servers of a turn: their tools (also by server, for an ACP agent that reaches them through Concord:
 * served-tools.ts), what the session should say about them, and how to stop them.
 */
export interface RepoMcpSession {
  tools: ToolDefinition[]
  servers: Map<string, ServedTool[]>
  notices: string[]
  close(): Promise<void>
}

/** The tool name the model sees for a server's tool. */
export const repoMcpToolName = (server: string, tool: string): string => `mcp__${server}__${tool}`

/** Starts the enabled servers of the tree's `.mcp.json` (those not in `off`) for one turn. */
export async function startRepoMcp(
  root: string,
  policy: SandboxPolicy,
  off: ReadonlySet<string>,
): Promise<RepoMcpSession> {
  const config = readRepoMcpConfig(root, memberEnv(root, policy))
  const notices = config.problems.map((p) => `${p.message} (${p.code})`)
  const started = await Promise.all(
    config.servers.filter((s) => !off.has(s.name)).map((s) => startServer(root, policy, s)),
  )
  const clients: Client[] = []
  const servers = new Map<string, ServedTool[]>()
  for (const s of started) {
    if ('notice' in s) notices.push(s.notice)
    else {
      clients.push(s.client)
      servers.set(s.name, s.tools)
      notices.push(...s.notices)
    }
  }
  return {
    tools: [...servers.values()].flat().map((t) => t.definition),
    servers,
    notices,
    close: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
    },
  }
}

/**
 * The environment a member's commands get (their `${VAR}`s are expanded from it); empty when it cannot be built (the
 * workspace's variables refused, no scratch folder): each server's start then says why.
 */
function memberEnv(root: string, policy: SandboxPolicy): Record<string, string> {
  try {
    return insideEnv(commandEnv(policy), root)
  } catch {
    return {}
  }
}

type Started = { name: string; client: Client; tools: ServedTool[]; notices: string[] } | { notice: string }

async function startServer(root: string, policy: SandboxPolicy, server: RepoMcpServer): Promise<Started> {
  let stderr = ''
  let transport: StdioClientTransport | undefined
  const client = new Client({ name: 'concord', version: '1' })
  try {
    const spawn = await sandboxedSpawn([server.command, ...server.args], {
      root,
      policy: { ...policy, env: { ...policy.env, ...server.env } },
    })
    transport = new StdioClientTransport({
      command: spawn.file,
      args: spawn.args,
      env: spawn.env,
      cwd: spawn.cwd,
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_TAIL)
    })
    const signal = AbortSignal.timeout(START_TIMEOUT_MS)
    await client.connect(transport, { signal, timeout: START_TIMEOUT_MS })
    const listed = await client.listTools(undefined, { signal, timeout: START_TIMEOUT_MS })
    const notices: string[] = []
    const tools: ServedTool[] = []
    for (const t of listed.tools) {
      const name = repoMcpToolName(server.name, t.name)
      if (TOOL_NAME.test(name)) tools.push({ listed: t, definition: serverTool(client, server.name, name, t) })
      else
        notices.push(
          `The tool "${t.name}" of the MCP server "${server.name}" is left out: ${name} is not a tool name a model accepts (letters, digits, _ and -, at most 64). (mcp_tool_name)`,
        )
    }
    return { name: server.name, client, tools, notices }
  } catch (err) {
    await client.close().catch(() => undefined)
    const why = err instanceof Error ? err.message : String(err)
    const tail = stderr.trim() ? ` Its last output: ${stderr.trim().slice(-500)}` : ''
    return {
      notice: `The MCP server "${server.name}" of .mcp.json did not start (${server.command}): ${why}.${tail} Its tools are not available this turn. (mcp_server_failed)`,
    }
  }
}

/** A server's tool as one of the member's tools: it always needs approval, like run_command. */
function serverTool(client: Client, server: string, name: string, tool: Tool): ToolDefinition {
  return {
    name,
    description: `[MCP server "${server}" of the repository's .mcp.json] ${tool.description ?? tool.name}`.slice(
      0,
      2000,
    ),
    parameters: tool.inputSchema,
    args: z.record(z.string(), z.unknown()),
    needsApproval: true,
    run: async (args, ctx) => {
      let result: CallToolResult
      try {
        result = (await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, {
          signal: ctx.signal,
          timeout: 10 * 60_000,
        })) as CallToolResult
      } catch (err) {
        if (ctx.signal.aborted) throw new ToolError('aborted', 'Interrupted.')
        throw new ToolError(
          'mcp_call_failed',
          `The MCP server "${server}" failed: ${err instanceof Error ? err.message : String(err)}`,
        )
      }
      const text = resultText(result)
      if (result.isError) throw new ToolError('mcp_tool_error', text || `${tool.name} failed without a message.`)
      return text
    },
  }
}

/** What the model reads of a result: its text parts, and a word for each part of another kind. */
function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type} content]`))
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent))
  return parts.join('\n')
}
