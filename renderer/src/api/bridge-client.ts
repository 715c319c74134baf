/**
 * The browser's ConcordApi: every contract method as `POST /api/<method>` and the event stream over one
 * WebSocket that reconnects with backoff. Used when the renderer runs against `concord serve`.
 * A server that refuses the token (401: it was started with another one) is not retried: the state becomes
 * 'unauthorized', which no reconnecting can end.
 */
import type { ConcordApi } from '../../../shared/api'
import type { EventEnvelope, MethodName, Params, Result } from '../../../shared/contract'
import { decode, decodeEvent, unwrap } from '../../../shared/wire'
import { ApiCallError } from './errors'

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'unauthorized'

/** A client whose event channel can drop and come back; `onConnection` reports each change. */
export interface ClientApi extends ConcordApi {
  onConnection(listener: (state: ConnectionState) => void): () => void
  close(): void
}

export interface BridgeClientOptions {
  /** http(s)://host:port of the bridge (the page's own origin in the app). */
  origin: string
  token: string
  fetch?: typeof fetch
  WebSocket?: typeof WebSocket
  /** Backoff bounds for reconnecting the event socket, in ms. */
  minDelay?: number
  maxDelay?: number
}

/** Delay before reconnect attempt `attempt` (0-based): exponential, capped, with ±20 % jitter. */
export function backoffDelay(attempt: number, min = 250, max = 8000, random = Math.random): number {
  const base = Math.min(max, min * 2 ** attempt)
  return Math.round(base * (0.8 + 0.4 * random()))
}

/** How long the token probe after a failed connect waits for an answer before it counts as "no answer". */
const PROBE_TIMEOUT = 5000

/** One POST of a contract method with the token. */
function post(
  options: BridgeClientOptions,
  doFetch: typeof fetch,
  method: string,
  body: string,
  signal?: AbortSignal,
): Promise<Response> {
  return doFetch(new URL(`/api/${method}`, options.origin).toString(), {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
    body,
    ...(signal ? { signal } : {}),
  })
}

/**
 * Why a socket closed before it opened: the browser does not tell a refused token (the upgrade's 401) from a server
 * that is down, so one call with the token asks. A 401 refuses; anything else (no answer at all) retries. The ask
 * gives up after PROBE_TIMEOUT: a server that accepts the connection but never answers (one still starting, or
 * stopped mid-answer) would otherwise leave the tab waiting on it for good, with no retry ever scheduled.
 */
async function tokenRefused(options: BridgeClientOptions, doFetch: typeof fetch): Promise<boolean> {
  const abort = new AbortController()
  const giveUp = setTimeout(() => abort.abort(), PROBE_TIMEOUT)
  try {
    const res = await post(options, doFetch, 'workspaces.list', '{}', abort.signal)
    return res.status === 401
  } catch {
    return false
  } finally {
    clearTimeout(giveUp)
  }
}

/** A contract method over HTTP; `refuse` is told when the server refuses the token. */
async function callBridge<M extends MethodName>(
  options: BridgeClientOptions,
  doFetch: typeof fetch,
  refuse: () => void,
  method: M,
  params: Params<M>,
): Promise<Result<M>> {
  let res: Response
  try {
    res = await post(options, doFetch, method, JSON.stringify(params ?? {}))
  } catch {
    throw new ApiCallError('network', 'Cannot reach the Concord server. Is `concord serve` still running?')
  }
  if (res.status === 401) refuse()
  let text: string
  try {
    text = await res.text()
  } catch {
    throw new ApiCallError('internal', `The server answered ${res.status} without a body`)
  }
  const body = decode<Result<M>>(text, `The server answered ${res.status} without a Concord response`)
  return unwrap(body, (e) => new ApiCallError(e.code, e.message, e.details))
}

/** The event socket's URL: the bridge's origin over ws(s), with the token. */
function eventsUrl(options: BridgeClientOptions): string {
  const url = new URL('/events', options.origin)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  url.searchParams.set('token', options.token)
  return url.toString()
}

/** The event channel's state and who listens to its changes (a listener hears the current one at once). */
function connectionState() {
  const listeners = new Set<(s: ConnectionState) => void>()
  let state: ConnectionState = 'closed'
  return {
    set(s: ConnectionState) {
      if (s === state) return
      state = s
      for (const l of listeners) l(s)
    },
    listen(listener: (s: ConnectionState) => void) {
      listeners.add(listener)
      listener(state)
      return () => listeners.delete(listener)
    },
  }
}

export function createBridgeClient(options: BridgeClientOptions): ClientApi {
  const doFetch = options.fetch ?? fetch.bind(globalThis)
  const WS = options.WebSocket ?? WebSocket
  const listeners = new Set<(e: EventEnvelope) => void>()
  let socket: WebSocket | null = null
  const conn = connectionState()
  const setState = conn.set
  let attempt = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  let closed = false
  /** The server answered 401 to the token: nothing more is tried. */
  let refused = false

  function refuse() {
    if (refused || closed) return
    refused = true
    if (timer) clearTimeout(timer)
    socket?.close()
    setState('unauthorized')
  }

  function retry() {
    if (closed || refused) return
    timer = setTimeout(connect, backoffDelay(attempt++, options.minDelay, options.maxDelay))
  }

  function connect() {
    if (closed || refused || socket) return
    setState('connecting')
    const ws = new WS(eventsUrl(options))
    socket = ws
    let opened = false
    ws.onopen = () => {
      opened = true
      attempt = 0
      setState('open')
    }
    ws.onmessage = (m) => {
      const envelope = decodeEvent(m.data)
      if (!envelope) return
      for (const l of listeners) l(envelope)
    }
    ws.onclose = () => {
      socket = null
      if (closed) {
        setState('closed')
        return
      }
      if (refused) return
      setState('connecting')
      if (opened) retry()
      else void tokenRefused(options, doFetch).then((no) => (no ? refuse() : retry()))
    }
    ws.onerror = () => ws.close()
  }

  return {
    call: (method, params) => callBridge(options, doFetch, refuse, method, params),
    onEvent(listener) {
      listeners.add(listener)
      connect()
      return () => listeners.delete(listener)
    },
    onConnection: conn.listen,
    close() {
      closed = true
      if (timer) clearTimeout(timer)
      socket?.close()
      if (!refused) setState('closed')
    },
  }
}
