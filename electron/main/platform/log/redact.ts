/**
 * What never reaches the log: values of secret-looking keys (apiKey, authorization, token,
 * OPENAI_API_KEY, password, cookie, …) at any depth, and secret-looking text inside strings
 * (bearer tokens, `sk-…` keys, passwords in URLs, `NAME_API_KEY=…`). pino's own `redact` takes
 * fixed paths only; a key anywhere in a nested error or env dump needs this walk.
 */

export const REDACTED = '[redacted]'

/** Keys whose value is a secret, matched on the whole key, case-insensitively. */
const secretKey =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|apikey|token|access[-_]?token|refresh[-_]?token|id[-_]?token|bearer|password|passwd|secret|client[-_]?secret|private[-_]?key|credentials?)$|[-_](api[-_]?key|access[-_]?key|token|secret|password|passwd)$|(apiKey|Token|Secret|Password)$/i

export const isSecretKey = (key: string) => secretKey.test(key)

const textPatterns: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g, `$1 ${REDACTED}`],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/(\/\/)[^\s/@:]+:[^\s/@]+@/g, `$1${REDACTED}@`],
  [/\b([A-Z][A-Z0-9]*_(API_KEY|TOKEN|SECRET|PASSWORD))=("[^"]*"|'[^']*'|\S+)/g, `$1=${REDACTED}`],
  [
    /(["']?\b(api[-_]?key|apiKey|authorization|token|password|secret)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;}]+)/gi,
    `$1"${REDACTED}"`,
  ],
]

export function scrubText(text: string): string {
  let out = text
  for (const [pattern, replacement] of textPatterns) out = out.replace(pattern, replacement)
  return out
}

const MAX_DEPTH = 8

/** A copy of `value` safe to log: errors become plain objects, secrets are replaced. */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value)
  if (value === null || typeof value !== 'object') return value
  if (seen.has(value)) return '[circular]'
  if (depth >= MAX_DEPTH) return '[too deep]'
  seen.add(value)
  if (value instanceof Error) {
    const e = value as Error & { code?: unknown; cause?: unknown }
    const out: Record<string, unknown> = {
      type: e.name,
      message: scrubText(e.message),
      stack: scrubText(e.stack ?? ''),
    }
    for (const [k, v] of Object.entries(e)) out[k] = isSecretKey(k) ? REDACTED : redact(v, depth + 1, seen)
    if (e.cause !== undefined) out.cause = redact(e.cause, depth + 1, seen)
    return out
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redact(v, depth + 1, seen)
  return out
}
