/**
 * How writes made by a `concord mcp` process (a separate process on the same data folder) reach the running app's
 * event bus, so a report Claude Code submits shows in the UI without a reload. The app listens on a local socket
 * and writes its address and a per-run secret to <dataDir>/run/relay.json (0600); the MCP process sends each event
 * its harness emitted as one JSON line carrying that secret. Domain events are taken, and of a session only its steps.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EventEnvelope, EventName } from '../../../../shared/contract'
import type { EventBus } from '../../platform/events/event-bus'

// session.step: the steps a `concord mcp` from the user's own terminal records in its member's session (its tool calls,
// the notices it delivered); the rest of a session (state, resets, deltas) is the app's alone.
const RELAYED = new Set<EventName>([
  'decision.created',
  'decision.changed',
  'proposal.changed',
  'task.changed',
  'report.submitted',
  'notice.created',
  'session.step',
])
const MAX_LINE = 4 * 1024 * 1024

const relayFile = (dataDir: string) => join(dataDir, 'run', 'relay.json')

export interface Relay {
  close(): void
}

/** Asks the human (in the app) to allow a call; null when the app has nobody to ask (no turn of that member runs). */
export type ApproveInApp = (memberId: string, name: string, argumentsText: string) => Promise<boolean | null>

/** The app's side: re-emits relayed events on its bus, and answers approval requests. */
export function startRelay(dataDir: string, bus: EventBus, approve?: ApproveInApp): Relay {
  const secret = randomBytes(24).toString('base64url')
  const expected = Buffer.from(secret)
  const address =
    process.platform === 'win32'
      ? `\\\\.\\pipe\\concord-${randomUUID()}`
      : join(tmpdir(), `concord-${randomUUID().slice(0, 12)}.sock`)
  const server = net.createServer((socket) => {
    let buffered = ''
    socket.setEncoding('utf8')
    socket.on('error', () => {})
    socket.on('data', (chunk: string) => {
      buffered += chunk
      if (buffered.length > MAX_LINE) return void socket.destroy()
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        let msg: {
          secret?: unknown
          event?: unknown
          payload?: unknown
          approve?: { memberId?: unknown; name?: unknown; argumentsText?: unknown }
        }
        try {
          msg = JSON.parse(line) as typeof msg
        } catch {
          return void socket.destroy()
        }
        const given = Buffer.from(typeof msg.secret === 'string' ? msg.secret : '')
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void socket.destroy()
        const a = msg.approve
        if (a && typeof a.memberId === 'string' && typeof a.name === 'string' && typeof a.argumentsText === 'string') {
          const answer = approve
            ? approve(a.memberId, a.name, a.argumentsText).catch(() => null)
            : Promise.resolve(null)
          void answer.then((allow) => socket.writable && socket.end(`${JSON.stringify({ allow })}\n`))
          continue
        }
        if (
          typeof msg.event === 'string' &&
          RELAYED.has(msg.event as EventName) &&
          msg.payload &&
          typeof msg.payload === 'object'
        ) {
          bus.emit(msg.event as EventName, msg.payload as never)
        }
      }
    })
  })
  server.on('error', (err) => console.error('concord mcp relay:', err.message))
  server.listen(address, () => {
    // The first live app on a data folder keeps the relay (a one-shot CLI command beside it must not take it over).
    if (livePid(dataDir) !== null) return
    mkdirSync(join(dataDir, 'run'), { recursive: true, mode: 0o700 })
    writeFileSync(relayFile(dataDir), JSON.stringify({ address, secret, pid: process.pid }), { mode: 0o600 })
  })
  server.unref()
  return {
    close() {
      server.close()
      try {
        const current = JSON.parse(readFileSync(relayFile(dataDir), 'utf8')) as { address?: string }
        if (current.address === address) rmSync(relayFile(dataDir), { force: true })
      } catch {
        // never written, or another app's by now
      }
    },
  }
}

function livePid(dataDir: string): number | null {
  try {
    const { pid } = JSON.parse(readFileSync(relayFile(dataDir), 'utf8')) as { pid?: number }
    if (typeof pid !== 'number' || pid === process.pid) return null
    process.kill(pid, 0)
    return pid
  } catch {
    return null
  }
}

// How long a closing MCP process waits for its last events to reach the app before it exits anyway.
const FLUSH_MS = 2_000

/**
 * The MCP process's side: forwards its bus's domain events to the app, if one is running (looked up at the first
 * event after a failure, so an app started later is found too); otherwise the data is in SQLite and nothing is lost.
 * The returned stop settles once what was written has left (or after FLUSH_MS): a process that exits at once would
 * drop the events of its last call, the socket being still connecting.
 */
export function forwardToApp(dataDir: string, bus: EventBus): () => Promise<void> {
  let link: { socket: net.Socket; secret: string } | null = null
  const connect = () => {
    try {
      const relay = JSON.parse(readFileSync(relayFile(dataDir), 'utf8')) as { address: string; secret: string }
      const socket = net.connect(relay.address)
      const current = { socket, secret: relay.secret }
      socket.on('error', () => {
        if (link === current) link = null
      })
      socket.unref()
      link = current
    } catch {
      link = null
    }
  }
  const off = bus.on((e: EventEnvelope) => {
    if (!RELAYED.has(e.event)) return
    if (!link) connect()
    link?.socket.write(`${JSON.stringify({ secret: link.secret, event: e.event, payload: e.payload })}\n`)
  })
  return () => {
    off()
    const socket = link?.socket
    if (!socket || socket.destroyed) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.destroy()
        resolve()
      }, FLUSH_MS)
      timer.unref()
      socket.once('close', () => {
        clearTimeout(timer)
        resolve()
      })
      socket.end()
    })
  }
}

/** The MCP process asks the running app to put a call to the human; null when there is no app or nobody to ask. */
export function approveInApp(
  dataDir: string,
  memberId: string,
  name: string,
  argumentsText: string,
): Promise<boolean | null> {
  let relay: { address: string; secret: string }
  try {
    relay = JSON.parse(readFileSync(relayFile(dataDir), 'utf8')) as typeof relay
  } catch {
    return Promise.resolve(null)
  }
  return new Promise((resolve) => {
    let answer = ''
    const socket = net.connect(relay.address, () =>
      socket.write(`${JSON.stringify({ secret: relay.secret, approve: { memberId, name, argumentsText } })}\n`),
    )
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (answer += d))
    socket.on('error', () => resolve(null))
    socket.on('close', () => {
      try {
        const allow = (JSON.parse(answer) as { allow?: unknown }).allow
        resolve(typeof allow === 'boolean' ? allow : null)
      } catch {
        resolve(null)
      }
    })
  })
}
