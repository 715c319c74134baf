/**
 * The wire format, typed once: every answer of the API is an `ApiResponse` and every push an
 * `EventEnvelope`, whichever transport carries them. The bridge and the IPC binding build answers with
 * `respond`/`refuse` (and `encode` them as JSON text over HTTP); the preload and the browser client
 * `decode` what arrives (JSON text or an IPC structured clone) and `unwrap` it into a value or a throw.
 */
import type { ApiResponse, EventEnvelope } from './contract'
import type { ApiErrorShape, ErrorCode } from './errors'

/** A successful answer. `undefined` travels as `null` (JSON has no undefined; callers see the same value on both transports). */
export function respond<T>(value: T): ApiResponse<T> {
  return { ok: true, value: (value ?? null) as T }
}

export function refuse(error: ApiErrorShape): ApiResponse<never> {
  return { ok: false, error }
}

/** JSON text of an answer, for HTTP bodies. */
export function encode(response: ApiResponse<unknown>): string {
  return JSON.stringify(response)
}

function isErrorShape(e: unknown): e is ApiErrorShape {
  if (!e || typeof e !== 'object') return false
  const { code, message } = e as { code?: unknown; message?: unknown }
  return typeof code === 'string' && typeof message === 'string'
}

/**
 * Reads an answer from JSON text or an already parsed object. Anything that is not an `ApiResponse`
 * becomes an `internal` refusal with `malformed` as its message, so callers handle one shape.
 * Error codes are passed through as sent: a newer core may know codes this side does not.
 */
export function decode<T>(input: unknown, malformed: string): ApiResponse<T> {
  let body = input
  if (typeof input === 'string') {
    try {
      body = JSON.parse(input)
    } catch {
      body = undefined
    }
  }
  if (body && typeof body === 'object') {
    const b = body as { ok?: unknown; value?: unknown; error?: unknown }
    if (b.ok === true && 'value' in b) return { ok: true, value: b.value as T }
    if (b.ok === false && isErrorShape(b.error)) {
      const { code, message, details } = b.error
      return refuse(details === undefined ? { code, message } : { code, message, details })
    }
  }
  return refuse({ code: 'internal', message: malformed })
}

/** The value of an answer, or throws the error `toError` makes of its refusal. */
export function unwrap<T>(response: ApiResponse<T>, toError: (error: ApiErrorShape) => Error = remoteError): T {
  if (response.ok) return response.value
  throw toError(response.error)
}

/** An Error carrying the refusal's `code` and `details` (what the preload throws to the renderer). */
export function remoteError(error: ApiErrorShape): Error & { code: ErrorCode; details?: unknown } {
  return Object.assign(new Error(error.message), { code: error.code, details: error.details })
}

/** JSON text of an event, for the WebSocket. */
export function encodeEvent(envelope: EventEnvelope): string {
  return JSON.stringify(envelope)
}

/** An event from JSON text, or null when it is not one (a frame that is not text, or not an envelope). */
export function decodeEvent(data: unknown): EventEnvelope | null {
  if (typeof data !== 'string') return null
  try {
    const e = JSON.parse(data) as { event?: unknown; payload?: unknown }
    return e && typeof e === 'object' && typeof e.event === 'string' && 'payload' in e ? (e as EventEnvelope) : null
  } catch {
    return null
  }
}
