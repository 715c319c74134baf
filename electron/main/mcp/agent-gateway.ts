/**
 * How an agent Concord runs in the OS sandbox reaches Concord's MCP server. The data folder is invisible inside the
 * sandbox, so `concord mcp` (which opens the data folder's SQLite files) cannot run there. Instead the agent starts a
 * tiny proxy that joins its stdio to a local socket; Concord, outside the sandbox, runs `concord mcp --member` for
 * each connection that presents the gateway's token. The socket's folder is the only thing of Concord's the sandbox
 * shows, read-only. The agent acts as its member through that server and nothing else.
 */
import { spawn } from 'node:child_process'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerStdio } from '@agentclientprotocol/sdk'

/** The variable that carries the gateway's token to the proxy. */
const TOKEN_VARIABLE = 'CONCORD_MCP_TOKEN'
const MAX_TOKEN_LINE = 256

/**
 * The proxy the agent starts, as a `node -e` program: it runs inside the read-only sandbox, where nothing can be
 * built or installed, so it needs no file of its own. argv[1] is the socket; the token goes first, then the bytes.
 */
const PROXY_SOURCE = [
  "const s = require('node:net').connect(process.argv[1], () => { s.write(process.env." + TOKEN_VARIABLE + " + '\\n'); process.stdin.pipe(s) })",
  's.pipe(process.stdout)',
  "s.on('close', () => process.exit(0))",
  "s.on('error', (e) => { process.stderr.write('concord mcp proxy: ' + e.message + '\\n'); process.exit(1) })",
].join('\n')

export interface GatewayTarget {
  /** The `concord mcp --member …` program Concord runs for each connection. */
  command: string
  args: string[]
  env: Record<string, string>
}

export class McpGateway {
  /** The folder the socket is in: shown read-only inside the agent's sandbox. */
  readonly dir: string
  readonly address: string
  private readonly token = randomBytes(24).toString('base64url')
  private readonly server: net.Server
  private readonly children = new Set<ReturnType<typeof spawn>>()
  readonly ready: Promise<void>

  constructor(private readonly target: GatewayTarget) {
    this.dir = mkdtempSync(join(tmpdir(), 'concord-mcp-'))
    this.address = join(this.dir, 's')
    this.server = net.createServer((socket) => this.accept(socket))
    this.ready = new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.address, () => resolve())
    })
    this.server.unref()
  }

  /** The server entry given to the agent (session/new or its own configuration). */
  serverEntry(name: string): McpServerStdio {
    const env = [{ name: TOKEN_VARIABLE, value: this.token }]
    // Inside Electron, process.execPath is Electron itself: run it as plain Node.
    if (process.versions.electron) env.push({ name: 'ELECTRON_RUN_AS_NODE', value: '1' })
    return { name, command: process.execPath, args: ['-e', PROXY_SOURCE, this.address], env }
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
      const given = head.subarray(0, nl)
      const expected = Buffer.from(this.token)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void socket.destroy()
      this.serve(socket, head.subarray(nl + 1))
    }
    socket.on('data', onData)
  }

  /** Runs one `concord mcp` for this connection, its stdio joined to the socket. */
  private serve(socket: net.Socket, rest: Buffer): void {
    const child = spawn(this.target.command, this.target.args, { env: this.target.env, stdio: ['pipe', 'pipe', 'pipe'] })
    this.children.add(child)
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-2000)))
    child.stdin.on('error', () => {})
    child.on('error', (err) => {
      console.error(`concord mcp for an agent could not start: ${err.message}`)
      socket.destroy()
    })
    child.on('exit', (code) => {
      this.children.delete(child)
      if (code && !socket.destroyed) console.error(`concord mcp for an agent exited with code ${code}: ${stderr.trim()}`)
      socket.destroy()
    })
    if (rest.length) child.stdin.write(rest)
    socket.pipe(child.stdin)
    child.stdout.pipe(socket)
    socket.resume()
    // The agent went away: concord mcp stops when its stdin ends.
    socket.on('close', () => child.stdin.end())
  }

  close(): void {
    this.server.close()
    for (const c of this.children) c.kill('SIGTERM')
    rmSync(this.dir, { recursive: true, force: true })
  }
}
