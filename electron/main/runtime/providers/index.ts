/**
 * createProvider: the one way the runtime gets a ModelProvider.
 *
 * - 'openai'            → OpenAI Chat Completions (key: config.apiKey, else env OPENAI_API_KEY).
 * - 'openai-compatible' → the same wire format against config.baseURL (key optional, never taken from the env).
 * - 'anthropic'         → Anthropic Messages (key: config.apiKey, else env ANTHROPIC_API_KEY).
 *
 * Retries are the SDK's own (429 / 408 / 409 / 5xx / connection failures, honouring Retry-After and
 * retry-after-ms), `maxRetries` times (default 3). A missing key or baseURL does not throw here: complete()
 * rejects with a ProviderError instead, so a misconfigured member fails its turn rather than the app.
 */
import { AnthropicProvider } from './anthropic'
import { OpenAIProvider } from './openai'
import type { ModelProvider, ProviderConfig } from './types'

export * from './types'

export interface CreateProviderOptions {
  /** Retries after the first attempt (SDK-managed). Default 3. */
  maxRetries?: number
  /** Per-attempt request timeout in ms (until the response starts). Default: the SDK's (10 minutes). */
  timeoutMs?: number
  /** Where fallback keys are read from. Default process.env. */
  env?: NodeJS.ProcessEnv
}

export const DEFAULT_MAX_RETRIES = 3

export function createProvider(config: ProviderConfig, options: CreateProviderOptions = {}): ModelProvider {
  const env = options.env ?? process.env
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES
  const timeoutMs = options.timeoutMs
  switch (config.kind) {
    case 'openai':
      return new OpenAIProvider(config, { apiKey: nonEmpty(config.apiKey) ?? nonEmpty(env.OPENAI_API_KEY), maxRetries, timeoutMs })
    case 'openai-compatible':
      // No env fallback: a real OpenAI key must never be sent to whatever base URL a member points at.
      return new OpenAIProvider(config, { apiKey: nonEmpty(config.apiKey), maxRetries, timeoutMs })
    case 'anthropic':
      return new AnthropicProvider(config, { apiKey: nonEmpty(config.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY), maxRetries, timeoutMs })
    default: {
      const kind: never = config.kind
      throw new Error(`Unknown provider kind: ${String(kind)}`)
    }
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}
