/** Failure mapping shared by the providers: SDK errors → ProviderError, with the key never in a message. */
import { ProviderError } from './types'

/** Wraps an exception thrown by the caller's onText so it is rethrown as-is rather than mapped. */
export class CallbackError extends Error {
  constructor(cause: unknown) {
    super('the stream callback threw', { cause })
  }
}

/** Never let the key reach an error message (some servers echo it back). */
export function redact(message: string, key: string | undefined): string {
  return key && key.length >= 4 ? message.split(key).join('[redacted]') : message
}

/** The innermost cause worth showing, e.g. ": ECONNREFUSED 127.0.0.1:9". */
export function errorDetail(err: unknown): string {
  let cause: unknown = err instanceof Error ? err.cause : undefined
  let detail = ''
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code
    detail = typeof code === 'string' && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message
    cause = cause.cause
  }
  return detail ? `: ${detail}` : ''
}

/** A transport failure not wrapped by the SDK (e.g. undici's "terminated" when the socket drops mid-stream). */
export function isNetworkError(err: unknown): boolean {
  if (err instanceof TypeError && /^(terminated|fetch failed)$/.test(err.message)) return true
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (
      typeof code === 'string' &&
      (/^UND_ERR_(SOCKET|CLOSED|CONNECT)/.test(code) ||
        /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(code))
    )
      return true
  }
  return false
}

export function abortedError(): ProviderError {
  return new ProviderError('aborted', 'The model call was interrupted.')
}

/** How one SDK classifies its own errors. */
export interface SdkErrors {
  isAbort(err: unknown): boolean
  isConnection(err: unknown): boolean
  isTimeout(err: unknown): boolean
  /** Status and the provider's own message for an API error; null for anything else. */
  apiError(err: unknown): { status: number | undefined; message: string } | null
}

/** The error classes both official SDKs export under the same names (both come from the same generator). */
export interface SdkErrorClasses<E extends Error & { status: number | undefined }> {
  APIUserAbortError: abstract new (...args: never[]) => Error
  APIConnectionError: abstract new (...args: never[]) => Error
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error
  APIError: abstract new (...args: never[]) => E
}

/** An SDK's classification from its error classes, with its own way of reading the provider's message. */
export function sdkErrorsOf<E extends Error & { status: number | undefined }>(
  sdk: SdkErrorClasses<E>,
  messageOf: (err: E) => string,
): SdkErrors {
  return {
    isAbort: (err) => err instanceof sdk.APIUserAbortError,
    isConnection: (err) => err instanceof sdk.APIConnectionError,
    isTimeout: (err) => err instanceof sdk.APIConnectionTimeoutError,
    apiError: (err) => (err instanceof sdk.APIError ? { status: err.status, message: messageOf(err) } : null),
  }
}

/** After a stream ends: an abort the SDK ended quietly, or a stream with nothing in it, is an error. */
export function checkStreamEnd(signal: AbortSignal | undefined, sawAny: boolean, label: string): void {
  // The SDK ends the iteration quietly when the request is aborted mid-stream.
  if (signal?.aborted) throw abortedError()
  if (!sawAny) throw new ProviderError('provider_error', `${label} returned an empty stream.`)
}

export interface FailureContext {
  signal: AbortSignal | undefined
  /** True once the reply had started: a dropped connection is then "lost mid-reply". */
  streaming: boolean
  /** e.g. "OpenAI", "Anthropic". */
  label: string
  /** The endpoint, for connection errors. */
  where: string
  key: string | undefined
}

export function toProviderError(err: unknown, sdk: SdkErrors, f: FailureContext): unknown {
  if (err instanceof CallbackError) return err.cause
  if (err instanceof ProviderError) return err
  if (f.signal?.aborted || sdk.isAbort(err)) return abortedError()
  if (sdk.isConnection(err) || isNetworkError(err)) {
    const where = `${f.label} (${f.where})`
    if (f.streaming)
      return new ProviderError(
        'provider_unreachable',
        redact(`Connection to ${where} was lost mid-reply${errorDetail(err)}`, f.key),
      )
    const what = sdk.isTimeout(err) ? 'timed out' : 'failed'
    return new ProviderError(
      'provider_unreachable',
      redact(`Could not reach ${where}: connection ${what}${errorDetail(err)}`, f.key),
    )
  }
  const api = sdk.apiError(err)
  if (api) {
    const { status } = api
    const serverMessage = redact(api.message, f.key)
    if (status === 401 || status === 403) {
      return new ProviderError(
        'provider_auth',
        `${f.label} rejected the credentials (${status}): ${serverMessage}`,
        status,
      )
    }
    if (status === 429) {
      return new ProviderError(
        'provider_rate_limited',
        `${f.label} is rate limiting requests (429) and retries ran out: ${serverMessage}`,
        status,
      )
    }
    return new ProviderError(
      'provider_error',
      status
        ? `${f.label} returned an error (${status}): ${serverMessage}`
        : `${f.label} reported an error mid-stream: ${serverMessage}`,
      status,
    )
  }
  const message = err instanceof Error ? err.message : String(err)
  return new ProviderError('provider_error', redact(`${f.label} call failed: ${message}${errorDetail(err)}`, f.key))
}
