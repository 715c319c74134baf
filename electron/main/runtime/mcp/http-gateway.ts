/**
 * Concord's MCP tools over the MCP streamable HTTP transport, for an agent that takes no stdio MCP server (GitHub
 * Copilot CLI 1.0: "Rejecting non-http/sse MCP server"): a loopback port of the running Concord, in this process, bound
 * to the live core like the gateway's socket. The agent's sandbox keeps the network on (the model endpoint), so the
 * port is reachable from inside it; every request must carry the member's own token (`Authorization: Bearer …`), which
 * reaches the agent in its session/new MCP entry (over ACP, never on a command line). Stateless: each request is
 * served by a fresh server on the member's binding as it is then, like each connection of the socket.
 */
import { timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { McpServerHttp } from '@agentclientprotocol/sdk'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

/** The path Concord's tools are served on; the repository's server `<name>` is served on `/mcp/<name>`. */
const MCP_PATH = '/mcp'
/** A JSON-RPC request body larger than this is refused (Concord's tools take small arguments). */
const MAX_BODY = 4 * 1024 * 1024

type HttpModules = [
  typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  typeof import('@modelcontextprotocol/sdk/types.js'),
]
let loading: Promise<HttpModules> | null = null
const loadServer = () =>
  (loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]))

/** The server a request is for: Concord's (null) or the repository's server named in the path; undefined: none. */
function serverOfPath(pathname: string): string | null | undefined {
  if (pathname === MCP_PATH) return null
  const name = pathname.startsWith(`${MCP_PATH}/`) ? decodeURIComponent(pathname.slice(MCP_PATH.length + 1)) : ''
  return /^[A-Za-z0-9_-]{1,32}$/.test(name) ? name : undefined
}

/** A JSON-RPC error answer (the transport's own shape), with its HTTP status. */
function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }))
}

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) {
        resolve(null)
        req.destroy()
      } else chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', () => resolve(null))
  })
}

export class McpHttpGateway {
  private readonly server: http.Server
  private readonly listening: Promise<number>

  /**
   * `token`: the member's gateway token; `serverFor`: the server of a request (Concord's on the member's binding as
   * it is then, or a repository's server); `connected`: told of each authorized `initialize` of Concord's (an agent
   * took the tools).
   */
  constructor(
    private readonly token: string,
    private readonly serverFor: (repo: string | null) => Promise<McpServer>,
    private readonly connected: () => void,
  ) {
    this.server = http.createServer((req, res) => void this.handle(req, res))
    this.listening = new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as AddressInfo).port))
    })
    // A port that cannot open is the agent's first turn's error (entry), not an unhandled rejection before it.
    this.listening.catch(() => {})
    this.server.unref()
  }

  /** The server entry given to the agent in session/new: the loopback URL and the member's token as a header. */
  async entry(name: string, repo = false): Promise<McpServerHttp & { type: 'http' }> {
    const port = await this.listening
    return {
      type: 'http',
      name,
      url: `http://127.0.0.1:${port}${MCP_PATH}${repo ? `/${encodeURIComponent(name)}` : ''}`,
      headers: [{ name: 'Authorization', value: `Bearer ${this.token}` }],
    }
  }

  private authorized(req: http.IncomingMessage, port: number): boolean {
    // A page in a browser could reach a loopback port by another host name (DNS rebinding): only this host is served.
    if (req.headers.host !== `127.0.0.1:${port}`) return false
    const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '')
    const expected = Buffer.from(this.token)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /** Why a request is not served (its status and words), or null: the path, the token, the method, the body. */
  private async refusal(req: http.IncomingMessage): Promise<[number, string] | { body: unknown; repo: string | null }> {
    const port = await this.listening
    const repo = serverOfPath(new URL(req.url ?? '/', 'http://x').pathname)
    if (repo === undefined) return [404, 'Not found']
    if (!this.authorized(req, port)) return [401, "Unauthorized: this member's token is required"]
    // Stateless: no server-sent stream to open, no session to end.
    if (req.method !== 'POST') return [405, 'Method not allowed']
    const text = await readBody(req)
    try {
      if (text !== null) return { body: JSON.parse(text) as unknown, repo }
    } catch {
      // below
    }
    return [400, 'Parse error: the body is not a JSON-RPC message']
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const checked = await this.refusal(req)
    if (Array.isArray(checked)) {
      refuse(res, ...checked)
      return
    }
    const { body, repo } = checked
    try {
      const [{ StreamableHTTPServerTransport }, { isInitializeRequest }] = await loadServer()
      const server = await this.serverFor(repo)
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => {
        void transport.close().catch(() => {})
        void server.close().catch(() => {})
      })
      await server.connect(transport)
      if (repo === null && (Array.isArray(body) ? body : [body]).some((m) => isInitializeRequest(m))) this.connected()
      await transport.handleRequest(req, res, body)
    } catch (err) {
      console.error(
        `Concord's MCP server over HTTP could not answer: ${err instanceof Error ? err.message : String(err)}`,
      )
      if (!res.headersSent) refuse(res, 500, "Concord's MCP server could not answer")
    }
  }

  close(): void {
    this.server.close()
    this.server.closeAllConnections()
  }
}
