/**
 * The browser bridge: the same core as the desktop app, over HTTP on 127.0.0.1.
 * `POST /api/<method>` (JSON params → {ok, value} | {ok:false, error}) and events on `/events` (WebSocket),
 * both guarded by a random token; the built renderer is served at `/`.
 */
import { timingSafeEqual } from 'node:crypto'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, resolve, sep } from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import type { ApiResponse } from '../../../shared/contract'
import { ApiError, httpStatusOf, type ApiErrorShape } from '../../../shared/errors'
import { refuse, respond } from '../../../shared/wire'
import { errorShape, toApiError } from '../api/dispatch'
import { peekDownload, removeDownload, sweepDownloads, takeDownload } from '../export/downloads'
import { stringifyReusing } from '../platform/events/serialized'
import type { Core } from '../core'

export interface BridgeOptions {
  core: Core
  port: number
  token: string
  /** Folder of the built renderer (out/renderer); `/` serves its index.html when present. */
  staticDir?: string
  maxBodyBytes?: number
}

export interface Bridge {
  url: string
  port: number
  close(): Promise<void>
}

const HOST = '127.0.0.1'
const mime: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : null
}

export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ws://${HOST}:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * Answers and event frames are the wire's JSON (shared/wire.ts encode/encodeEvent), written with
 * stringifyReusing: an edit's impact was serialized once where it was made, and both the edit's answer
 * and its decision.changed frame splice in that same text instead of serializing it again.
 */
function send(
  res: ServerResponse,
  status: number,
  body: ApiResponse<unknown>,
  headers: Record<string, string> = {},
): void {
  const text = stringifyReusing(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers })
  res.end(text)
}

/**
 * Reads the body up to `limit` bytes. Past it, the rest is read and dropped so that the 413 reaches
 * the client: closing a socket with unread data resets the connection before the answer arrives.
 * (Only a client holding the token gets here.)
 */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolveBody, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= limit) chunks.push(c)
    })
    req.on('end', () => {
      if (size > limit)
        reject(
          new ApiError(
            'payload_too_large',
            `the request body is larger than ${limit} bytes; send less (split the call)`,
          ),
        )
      else resolveBody(Buffer.concat(chunks).toString('utf8'))
    })
    req.on('error', reject)
  })
}

/** decodeURIComponent, as a 400 instead of a URIError (an `internal` 500 with a stack in the log). */
function decodePath(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new ApiError('invalid_params', 'the URL is not valid percent-encoding')
  }
}

function sendError(res: ServerResponse, err: ApiError | ApiErrorShape, headers: Record<string, string> = {}): void {
  const shape = err instanceof ApiError ? err.toJSON() : err
  send(res, httpStatusOf[shape.code] ?? 500, refuse(shape), headers)
}

/** What every request handler reads: the core, the token and the port (known once the server listens). */
interface Served {
  core: Core
  token: string
  maxBody: number
  staticDir: string | undefined
  port: number
}

const allowedHosts = (port: number) => new Set([`${HOST}:${port}`, `localhost:${port}`])

// node:http ignores the handler's promise: route catches everything itself.
async function route(served: Served, req: IncomingMessage, res: ServerResponse) {
  try {
    // DNS-rebinding guard: only answer requests addressed to the loopback name we serve.
    if (!allowedHosts(served.port).has(req.headers.host ?? '')) {
      sendError(res, { code: 'forbidden', message: 'bad Host header' })
      return
    }
    let url: URL
    try {
      url = new URL(req.url ?? '/', `http://${HOST}:${served.port}`)
    } catch {
      sendError(res, new ApiError('invalid_params', 'the URL cannot be parsed'))
      return
    }
    if (url.pathname.startsWith('/api/')) {
      await handleApi(served, req, res, url)
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, refuse({ code: 'invalid_params', message: 'method not allowed' }))
      return
    }
    // The download route takes the path as sent: never a normalised one (`/downloads/<id>/../<id>/<name>`).
    const rawPath = (req.url ?? '/').split('?')[0]!
    if (rawPath.startsWith('/downloads/')) {
      serveDownload(served, req, res, rawPath)
      return
    }
    serveStatic(served, res, url.pathname)
    return
  } catch (err) {
    if (!res.headersSent) sendError(res, toApiError(err))
  }
}

/** The JSON params of an API call, or null once a refusal has been sent. */
async function readParams(served: Served, req: IncomingMessage, res: ServerResponse): Promise<object | null> {
  let params: unknown = {}
  try {
    const text = await readBody(req, served.maxBody)
    if (text.trim()) params = JSON.parse(text)
  } catch (err) {
    const e = err instanceof ApiError ? err : new ApiError('invalid_params', 'the body is not valid JSON')
    sendError(res, e, e.code === 'payload_too_large' ? { connection: 'close' } : {})
    return null
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    sendError(res, { code: 'invalid_params', message: 'params must be a JSON object' })
    return null
  }
  return params
}

async function handleApi(served: Served, req: IncomingMessage, res: ServerResponse, url: URL) {
  if (!sameToken(bearer(req), served.token)) {
    sendError(res, { code: 'unauthorized', message: 'missing or wrong token: send Authorization: Bearer <token>' })
    return
  }
  if (req.method !== 'POST') {
    send(res, 405, refuse({ code: 'invalid_params', message: 'use POST' }), { allow: 'POST' })
    return
  }
  const method = decodePath(url.pathname.slice('/api/'.length))
  const params = await readParams(served, req, res)
  if (!params) return
  try {
    send(res, 200, respond(await served.core.call(method, params)))
  } catch (err) {
    sendError(res, errorShape(err))
  }
}

/**
 * A zip export.download wrote (`/downloads/<id>/<name>`, `rawPath` as sent), streamed from its file, once: taken at
 * the first GET and removed when that answer closes, sent in full or not. The random id is the capability: only a
 * caller holding the token got it (an `<a download>` cannot send the header). Anything else is a 404 that serves
 * nothing.
 */
function serveDownload(served: Served, req: IncomingMessage, res: ServerResponse, rawPath: string) {
  const [id = '', name = '', ...more] = rawPath.slice('/downloads/'.length).split('/')
  const dataDir = served.core.harness.dataDir
  const head = req.method === 'HEAD'
  // HEAD looks without taking it.
  const found = more.length ? null : (head ? peekDownload : takeDownload)(dataDir, id, name)
  if (!found) {
    sendError(res, { code: 'not_found', message: 'no such download: export again' })
    return
  }
  res.writeHead(200, {
    'content-type': 'application/zip',
    'content-length': String(found.size),
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  if (head) {
    res.end()
    return
  }
  res.on('close', () => removeDownload(dataDir, id))
  const stream = createReadStream(found.path)
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}

function serveStatic(served: Served, res: ServerResponse, pathname: string) {
  const { staticDir } = served
  const root = staticDir && existsSync(join(staticDir, 'index.html')) ? resolve(staticDir) : null
  const securityHeaders = {
    'content-security-policy': contentSecurityPolicy(served.port),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  }
  if (!root) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...securityHeaders })
    res.end(
      '<!doctype html><title>Concord</title><p>Concord core is running. The UI is not built: run <code>npm run build</code>. The API is at <code>POST /api/&lt;method&gt;</code>.</p>',
    )
    return
  }
  const rel = decodePath(pathname === '/' ? '/index.html' : pathname)
  let file = resolve(root, '.' + rel)
  if (file !== root && !file.startsWith(root + sep)) {
    sendError(res, { code: 'not_found', message: 'not found' })
    return
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    // Client-side routes fall back to the app shell; missing assets are 404.
    if (extname(rel)) {
      sendError(res, { code: 'not_found', message: 'not found' })
      return
    }
    file = join(root, 'index.html')
  }
  res.writeHead(200, {
    'content-type': mime[extname(file)] ?? 'application/octet-stream',
    'cache-control': file.endsWith('.html') ? 'no-store' : 'public, max-age=3600',
    ...securityHeaders,
  })
  createReadStream(file).pipe(res)
}

/** The `/events` WebSocket: upgrades that carry the token from an allowed host and origin; each client's filter. */
function acceptEventSockets(served: Served, server: Server) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  const clients = new Map<WebSocket, string | null>()
  server.on('upgrade', (req, socket, head) => {
    const { port } = served
    const url = new URL(req.url ?? '/', `http://${HOST}:${port}`)
    const origin = req.headers.origin
    const originOk = !origin || origin === `http://${HOST}:${port}` || origin === `http://localhost:${port}`
    const tokenOk = sameToken(url.searchParams.get('token') ?? bearer(req), served.token)
    if (url.pathname !== '/events' || !allowedHosts(port).has(req.headers.host ?? '') || !originOk || !tokenOk) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n')
      socket.destroy()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.set(ws, url.searchParams.get('workspaceId'))
      ws.on('close', () => clients.delete(ws))
      ws.on('error', () => clients.delete(ws))
    })
  })
  return { wss, clients }
}

/** Every event on the bus, to each client whose workspace filter it passes. */
function broadcastEvents(core: Core, clients: Map<WebSocket, string | null>): () => void {
  return core.bus.on((envelope) => {
    if (!clients.size) return
    const ws = (envelope.payload as { workspaceId?: string; workspace?: { id: string } }).workspaceId
    const text = stringifyReusing(envelope)
    for (const [client, filter] of clients) {
      if (filter && ws && filter !== ws) continue
      if (client.readyState === client.OPEN) client.send(text)
    }
  })
}

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const { core, token } = options
  // Downloads left by a Concord stopped before they were fetched or expired.
  sweepDownloads(core.harness.dataDir)
  const served: Served = {
    core,
    token,
    maxBody: options.maxBodyBytes ?? 10 * 1024 * 1024,
    staticDir: options.staticDir,
    port: options.port,
  }
  const server = createServer((req, res) => void route(served, req, res))
  const { wss, clients } = acceptEventSockets(served, server)
  const unsubscribe = broadcastEvents(core, clients)

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(options.port, HOST, () => ok())
  })
  const port = (served.port = (server.address() as AddressInfo).port)

  return {
    url: `http://${HOST}:${port}/?token=${encodeURIComponent(token)}`,
    port,
    async close() {
      unsubscribe()
      for (const c of clients.keys()) c.terminate()
      wss.close()
      await new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      })
    },
  }
}
