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
 *
 * Each SDK is loaded on a member's first model call, not when Concord starts: the two clients cost more
 * to import than the rest of the core together, and most workspaces use one provider or none.
 */
import { publicConfig, type ModelProvider, type ModelRequest, type ModelResult, type ProviderConfig } from './types'

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
    case 'openai': {
      const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.OPENAI_API_KEY)
      return new LazyProvider(
        config,
        async () => new (await import('./openai')).OpenAIProvider(config, { apiKey, maxRetries, timeoutMs }),
      )
    }
    case 'openai-compatible': {
      // No env fallback: a real OpenAI key must never be sent to whatever base URL a member points at.
      const apiKey = nonEmpty(config.apiKey)
      return new LazyProvider(
        config,
        async () => new (await import('./openai')).OpenAIProvider(config, { apiKey, maxRetries, timeoutMs }),
      )
    }
    case 'anthropic': {
      const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY)
      return new LazyProvider(
        config,
        async () => new (await import('./anthropic')).AnthropicProvider(config, { apiKey, maxRetries, timeoutMs }),
      )
    }
    default: {
      const kind: never = config.kind
      throw new Error(`Unknown provider kind: ${String(kind)}`)
    }
  }
}

const sdks: Record<ProviderConfig['kind'], () => Promise<unknown>> = {
  openai: () => import('./openai'),
  'openai-compatible': () => import('./openai'),
  anthropic: () => import('./anthropic'),
}

/**
 * Loads a provider's SDK ahead of its first call, for a member that will probably use it soon (its workspace is
 * open): the first turn then does not pay for the import, nor stall streaming members while it is evaluated.
 * Failures are left to the call itself to report.
 */
export function warmProvider(kind: ProviderConfig['kind']): void {
  void sdks[kind]().catch(() => undefined)
}

/** A provider whose SDK client is built on the first call (the key is read now, when the member is set up). */
class LazyProvider implements ModelProvider {
  readonly config: Readonly<Omit<ProviderConfig, 'apiKey'>>
  #inner: Promise<ModelProvider> | null = null

  constructor(
    config: ProviderConfig,
    private readonly load: () => Promise<ModelProvider>,
  ) {
    this.config = publicConfig(config)
  }

  async complete(request: ModelRequest, onText: (delta: string) => void): Promise<ModelResult> {
    // A failed import (a broken installation) is retried on the next call rather than cached.
    const inner = (this.#inner ??= this.load().catch((err: unknown) => {
      this.#inner = null
      throw err
    }))
    return (await inner).complete(request, onText)
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}
