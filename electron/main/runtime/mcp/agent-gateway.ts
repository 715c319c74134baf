/**
 * How an agent Concord runs in the OS sandbox reaches Concord's MCP server. The data folder is invisible inside the
 * sandbox, and the agent must not open the workspace's files anyway. Instead the agent starts a tiny proxy that joins
 * its stdio to a local socket; Concord serves its MCP tools on each connection that presents the gateway's token,
 * inside the running Concord, bound to the live core (see app-binding.ts): no second process, no second writer of
 * the workspace's SQLite files. The socket's folder is the only thing of Concord's the sandbox shows, read-only. The
 * agent acts as its member through that server and nothing else. The repository's MCP servers reach the agent the
 * same way, each under its own name (the proxy says which after the token), served by Concord for the member's turn
 * (repo-mcp/served-tools.ts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerHttp, McpServerStdio } from '@agentclientprotocol/sdk'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { nodeCommand } from '../../platform/paths'
import type { ServedTool } from '../repo-mcp/servers'
import { McpHttpGateway } from './http-gateway'
import type { McpBinding } from './server'

/** The variable that carries the gateway's token to the proxy. */
const TOKEN_VARIABLE = 'CONCORD_MCP_TOKEN'
const MAX_TOKEN_LINE = 256

/**
 * The proxy the agent starts, as a `node -e` program: it runs inside the read-only sandbox, where nothing can be
 * built or installed, so it needs no file of its own. argv[1] is the socket, argv[2] the repository's server it
 * reaches (none: Concord's); the token (and that name) go first, then the bytes.
 */
const PROXY_SOURCE = [
  "const s = require('node:net').connect(process.argv[1], () => { s.write(process.env." +
    TOKEN_VARIABLE +
    " + (process.argv[2] ? ' ' + process.argv[2] : '') + '\\n'); process.stdin.pipe(s) })",
  's.pipe(process.stdout)',
  "s.on('close', () => process.exit(0))",
  "s.on('error', (e) => { process.stderr.write('concord mcp proxy: ' + e.message + '\\n'); process.exit(1) })",
].join('\n')

/** The MCP SDK and the tools, loaded when the first agent connects (not with Concord: most workspaces have no agent). */
type ServerModules = [
  typeof import('./server'),
  typeof import('@modelcontextprotocol/sdk/server/stdio.js'),
  typeof import('../repo-mcp/served-tools'),
]
let loading: Promise<ServerModules> | null = null
const loadServer = () =>
  (loading ??= Promise.all([
    import('./server'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../repo-mcp/served-tools'),
  ]))

/** The tools of the repository's server named so in the member's running turn; null when no turn runs them. */
export type RepoToolsOf = (server: string) => ServedTool[] | null

export class McpGateway {
  /** The folder the socket is in: shown read-only inside the agent's sandbox. */
  readonly dir: string
  readonly address: string
  private readonly token = randomBytes(24).toString('base64url')
  private readonly server: net.Server
  private readonly servers = new Set<McpServer>()
  private closed = false
  readonly ready: Promise<void>
  /** Connections that presented the token: how Concord knows an agent took its tools at all. */
  connections = 0
  private readonly waiters = new Set<() => void>()
  /** The same tools over HTTP on a loopback port, opened for the first agent that takes no stdio server. */
  private http: McpHttpGateway | null = null
  /** More sockets it serves on (listenAt), by path. */
  private readonly more = new Map<string, net.Server>()

  /**
   * `binding` is called for each connection: the member's binding as it is then (its authority sets the tools);
   * `repoTools`: the repository's servers of the member's running turn.
   */
  constructor(
    private readonly binding: () => McpBinding,
    private readonly repoTools: RepoToolsOf = () => null,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'concord-mcp-'))
    this.address = join(this.dir, 's')
    this.server = net.createServer((socket) => this.accept(socket))
    this.ready = new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.address, () => resolve())
    })
    this.server.unref()
  }

  /**
   * The server entry given to the agent (session/new or its own configuration): Concord's, or with `repo` the
   * repository's server of that name.
   */
  serverEntry(name: string, repo = false): McpServerStdio {
    // Node from electron/main/paths.ts: this program, as plain Node inside Electron (ELECTRON_RUN_AS_NODE).
    const node = nodeCommand()
    const env = [
      { name: TOKEN_VARIABLE, value: this.token },
      ...Object.entries(node.env).map(([name, value]) => ({ name, value })),
    ]
    return { name, command: node.command, args: ['-e', PROXY_SOURCE, this.address, ...(repo ? [name] : [])], env }
  }

  /** The MCP server one connection (or HTTP request) is served by: Concord's, or the repository's server `repo`. */
  async mcpServerFor(repo: string | null): Promise<McpServer> {
    const [{ createMcpServer }, , { createServedRepoMcp }] = await loadServer()
    if (repo === null) return createMcpServer(this.binding())
    return createServedRepoMcp(this.binding(), repo, () => this.repoTools(repo))
  }

  /**
   * The server entry for an agent that takes MCP servers only over HTTP: the same tools, the same token (in a header
   * of the entry, which reaches the agent over ACP), on a loopback port (http-gateway.ts).
   */
  httpEntry(name: string, repo = false): Promise<McpServerHttp & { type: 'http' }> {
    this.http ??= new McpHttpGateway(
      this.token,
      (r) => this.mcpServerFor(r),
      () => this.connected(),
    )
    return this.http.entry(name, repo)
  }

  /**
   * Also serves on the socket `path`: a folder a container sees through a mount, where its agent connects (the same
   * token, the same tools). Made again when its file is gone.
   */
  async listenAt(path: string): Promise<void> {
    const before = this.more.get(path)
    if (before && existsSync(path)) return
    before?.close()
    rmSync(path, { force: true })
    const server = net.createServer((socket) => this.accept(socket))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => resolve())
    })
    server.unref()
    this.more.set(path, server)
  }

  private connected(): void {
    this.connections++
    for (const w of this.waiters) w()
  }

  private accept(socket: net.Socket): void {
    socket.on('error', () => {})
    let head = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const nl = head.indexOf(10)
      if (nl < 0) {
        if (head.length > MAX_TOKEN_LINE) socket.destroy()
        return
      }
      socket.off('data', onData)
      socket.pause()
      const line = head.subarray(0, nl).toString('utf8')
      const space = line.indexOf(' ')
      const given = Buffer.from(space < 0 ? line : line.slice(0, space))
      const repo = space < 0 ? null : line.slice(space + 1)
      const expected = Buffer.from(this.token)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void socket.destroy()
      // Only Concord's own server counts as the agent taking Concord's tools (declined-tools.ts).
      if (repo === null) this.connected()
      this.serve(socket, head.subarray(nl + 1), repo)
    }
    socket.on('data', onData)
  }

  /** Whether an agent connected after the count was `since`, waiting up to `ms` for it. */
  async connectedSince(since: number, ms: number): Promise<boolean> {
    if (this.connections > since) return true
    let done: () => void = () => {}
    const connected = new Promise<void>((resolve) => (done = resolve))
    this.waiters.add(done)
    let timer: NodeJS.Timeout | undefined
    await Promise.race([connected, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
    this.waiters.delete(done)
    return this.connections > since
  }

  /** Serves Concord's MCP tools (or the repository's server `repo`) on this connection, in this process, as the member. */
  private serve(socket: net.Socket, rest: Buffer, repo: string | null): void {
    void loadServer()
      .then(async ([, { StdioServerTransport }]) => {
        const server = await this.mcpServerFor(repo)
        if (this.closed || socket.destroyed) return void socket.destroy()
        // The bytes after the token line are the first JSON-RPC messages: read again by the transport.
        if (rest.length) socket.unshift(rest)
        this.servers.add(server)
        const transport = new StdioServerTransport(socket, socket)
        // The agent went away (or Concord closed the server): both ends stop.
        transport.onclose = () => socket.destroy()
        socket.once('close', () => {
          this.servers.delete(server)
          void server.close().catch(() => {})
        })
        await server.connect(transport)
        socket.resume()
      })
      .catch((err: unknown) => {
        console.error(
          `Concord's MCP server for an agent could not start: ${err instanceof Error ? err.message : String(err)}`,
        )
        socket.destroy()
      })
  }

  close(): void {
    this.closed = true
    this.server.close()
    this.http?.close()
    for (const [path, server] of this.more) {
      server.close()
      rmSync(path, { force: true })
    }
    for (const s of this.servers) void s.close().catch(() => {})
    rmSync(this.dir, { recursive: true, force: true })
  }
}
