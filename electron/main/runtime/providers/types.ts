/** Provider-neutral shapes for one model call. The agent loop builds these; providers translate to each wire format. */
import type { ProviderKindValue } from '../../../../shared/enums'
import type { ImageInput } from '../../../../shared/images'

export type ProviderKind = ProviderKindValue

export interface ProviderConfig {
  kind: ProviderKind
  model: string
  baseURL?: string
  apiKey?: string
}

/** How a provider's SDK client is made: the key (read when the member was set up), its retries and timeout. */
export interface ProviderOptions {
  apiKey?: string
  maxRetries: number
  timeoutMs?: number
}

/** The configuration a provider shows (frozen): everything but the key. */
export function publicConfig(config: ProviderConfig): Readonly<Omit<ProviderConfig, 'apiKey'>> {
  return Object.freeze({
    kind: config.kind,
    model: config.model,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
  })
}

export interface ToolCall {
  id: string
  name: string
  /** The arguments exactly as the model sent them (JSON text, possibly malformed). */
  argumentsText: string
}

export type ChatMessage =
  | { role: 'user'; content: string; images?: ImageInput[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean }

export interface ToolSpec {
  name: string
  description: string
  /** JSON Schema (type: object). */
  parameters: Record<string, unknown>
}

export interface ModelRequest {
  system: string
  messages: ChatMessage[]
  tools: ToolSpec[]
  maxTokens?: number
  signal?: AbortSignal
}

export interface Usage {
  inputTokens: number
  outputTokens: number
}

export interface ModelResult {
  text: string
  toolCalls: ToolCall[]
  /** null when the provider reported no token usage (some OpenAI-compatible servers send none): never a silent 0. */
  usage: Usage | null
  /** Provider's own stop reason, normalised: 'end' | 'tool_calls' | 'max_tokens' | other raw value. */
  stopReason: string
}

export interface ModelProvider {
  readonly config: Readonly<Omit<ProviderConfig, 'apiKey'>>
  /** Streams text deltas through onText; resolves with the whole reply. Throws ProviderError. */
  complete(request: ModelRequest, onText: (delta: string) => void): Promise<ModelResult>
}

export type ProviderErrorCode =
  'provider_auth' | 'provider_unreachable' | 'provider_rate_limited' | 'provider_error' | 'aborted'

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
