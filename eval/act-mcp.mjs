/**
 * The eval's one MCP tool, `act`, as a stdio MCP server the coding agent starts (eval/agent.ts). Plain Node, no
 * build step. Each call's arguments are posted to the eval process (EVAL_ACT_URL, a per-member secret path on
 * 127.0.0.1), which records the member's action for this step and answers with the text returned to the agent.
 * The tool's input schema is the model member's (eval/model.ts ACT), passed in EVAL_ACT_SCHEMA.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const url = process.env.EVAL_ACT_URL
const tool = JSON.parse(process.env.EVAL_ACT_SCHEMA ?? '{}')
const server = new Server({ name: 'act', version: '0.1.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'act', description: tool.description, inputSchema: tool.parameters }],
}))
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name !== 'act')
    return { content: [{ type: 'text', text: `Unknown tool ${req.params.name}` }], isError: true }
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(req.params.arguments ?? {}),
    })
    return { content: [{ type: 'text', text: await res.text() }], isError: !res.ok }
  } catch (err) {
    return {
      content: [{ type: 'text', text: `The eval did not answer: ${err instanceof Error ? err.message : String(err)}` }],
      isError: true,
    }
  }
})
await server.connect(new StdioServerTransport())
