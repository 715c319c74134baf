import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { resolveDataDir } from '../main/platform/data-dir'
import { createMcpServer } from '../main/runtime/mcp/server'
import { standaloneBinding } from '../main/api/concord-mcp/standalone'
import { stringFlag, type ParsedArgs } from './args'
import { UsageError } from './errors'

/**
 * `concord mcp --member ID [--data-dir DIR]`: Concord's harness tools over stdio, as that member.
 * Stdout carries the protocol only; everything a person should read goes to stderr.
 */
export async function mcpCommand(args: ParsedArgs): Promise<void> {
  const memberId = stringFlag(args, 'member')
  if (!memberId)
    throw new UsageError(
      '--member is required: the id of the member this agent acts as (see the member in Concord); see concord mcp --help',
    )
  const dataDir = resolveDataDir(stringFlag(args, 'data-dir'))
  const { binding, close } = standaloneBinding(dataDir, memberId)
  const server = createMcpServer(binding)
  const transport = new StdioServerTransport()
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    // The last call's events still go to the app before the process goes.
    void close().finally(() => process.exit(0))
  }
  transport.onclose = stop
  process.stdin.once('end', stop)
  process.once('SIGTERM', stop)
  await server.connect(transport)
}
