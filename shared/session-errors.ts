/**
 * Why a member stopped on an error, for code (the message is for a person): the provider refused the key
 * (provider_auth) or no provider is set (no_provider) — both fixed in the member's settings —, the provider could
 * not be reached, rate limited or failed otherwise, the repository could not be prepared for the turn, or the turn
 * failed some other way (an external agent's error, say).
 */
export const sessionErrorCodes = [
  'provider_auth',
  'no_provider',
  'provider_unreachable',
  'provider_rate_limited',
  'provider_error',
  'tree_unavailable',
  'turn_failed',
] as const

export type SessionErrorCode = (typeof sessionErrorCodes)[number]

/** Whether the member's provider settings fix this error: the session offers them rather than a restart. */
export const fixedInSettings = (code: SessionErrorCode | null | undefined): boolean =>
  code === 'provider_auth' || code === 'no_provider'
