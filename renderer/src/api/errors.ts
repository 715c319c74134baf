import type { ErrorCode } from '../../../shared/errors'
import type { AcceptanceAction } from '../../../shared/schemas'

/** What every failed call looks like to the UI, whichever transport it came through. */
export interface ClientError {
  code: ErrorCode | 'network'
  message: string
  details?: unknown
}

export class ApiCallError extends Error implements ClientError {
  constructor(
    readonly code: ClientError['code'],
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
    this.name = 'ApiCallError'
  }
}

/** Normalises anything thrown by `api.call` (preload Error with code, bridge error, fetch failure). */
export function asClientError(err: unknown): ClientError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; details?: unknown }
    if (typeof e.code === 'string' && typeof e.message === 'string') {
      return { code: e.code as ClientError['code'], message: e.message, details: e.details }
    }
    if (typeof e.message === 'string') return { code: 'internal', message: e.message }
  }
  return { code: 'internal', message: String(err) }
}

export interface RefusalReason {
  code: string
  reportId: string | null
  message: string
  /** The report kind it is about (missing, failed or stale), when it is about one. */
  reportKind?: 'implementation' | 'test' | 'review'
  /** The prefilled message that resolves it (memberId null: no member fits, pick one). */
  action?: AcceptanceAction | null
}

/** The exact reasons an acceptance was refused (tasks.accept → details.reasons), if any. */
export function refusalReasons(err: ClientError): RefusalReason[] {
  const d = err.details as { reasons?: unknown } | undefined
  if (!d || !Array.isArray(d.reasons)) return []
  return d.reasons.filter((r): r is RefusalReason => !!r && typeof (r as RefusalReason).message === 'string')
}
