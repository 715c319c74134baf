/**
 * OpenAI Chat Completions provider (kinds 'openai' and 'openai-compatible').
 *
 * Always streams (`stream: true`, `stream_options.include_usage`), forwards text deltas as they arrive,
 * and assembles tool calls from their per-index deltas. Retries (429 / 5xx / connection failures, honouring
 * Retry-After and retry-after-ms) are left to the SDK; whatever is still failing afterwards becomes a ProviderError.
 */
import type { ImageInput } from '../../../../shared/images'
import OpenAI from 'openai'
import {
  publicConfig,
  ProviderError,
  type Usage,
  type ChatMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
  type ProviderConfig,
  type ProviderOptions,
  type ToolCall,
  type ToolSpec,
} from './types'
import { abortedError, sdkErrorsOf } from './errors'
import { streamReply, type ProviderFailure, type ReplyAssembler, type ReplyText } from './stream'

/** Placeholder sent to OpenAI-compatible servers that need no key (the SDK refuses to start without one). */
export const NO_KEY_PLACEHOLDER = 'not-needed'

export class OpenAIProvider implements ModelProvider {
  readonly config: Readonly<Omit<ProviderConfig, 'apiKey'>>
  readonly #client: OpenAI | null
  readonly #configError: ProviderError | null
  readonly #failure: ProviderFailure

  constructor(config: ProviderConfig, options: ProviderOptions) {
    this.config = publicConfig(config)
    this.#failure = {
      label: config.kind === 'openai' ? 'OpenAI' : 'OpenAI-compatible server',
      where: config.baseURL ?? 'https://api.openai.com/v1',
      key: options.apiKey,
    }
    let configError: ProviderError | null = null
    if (config.kind === 'openai' && !options.apiKey) {
      configError = new ProviderError(
        'provider_auth',
        'No OpenAI API key configured (set one for this member or the OPENAI_API_KEY environment variable).',
      )
    } else if (config.kind === 'openai-compatible' && !config.baseURL) {
      configError = new ProviderError(
        'provider_error',
        'An openai-compatible provider needs a baseURL (e.g. http://localhost:11434/v1).',
      )
    }
    this.#configError = configError
    this.#client = configError
      ? null
      : new OpenAI({
          apiKey: options.apiKey || NO_KEY_PLACEHOLDER,
          baseURL: config.baseURL ?? 'https://api.openai.com/v1',
          // Do not pick organisation/project headers up from the environment for third-party servers.
          ...(config.kind === 'openai-compatible' ? { organization: null, project: null } : {}),
          maxRetries: options.maxRetries,
          ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        })
  }

  async complete(request: ModelRequest, onText: (delta: string) => void): Promise<ModelResult> {
    if (this.#configError) throw this.#configError
    const client = this.#client!
    const signal = request.signal
    if (signal?.aborted) throw abortedError()

    const params: OpenAI.ChatCompletionCreateParamsStreaming = {
      model: this.config.model,
      messages: toOpenAIMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.tools.length > 0 ? { tools: toOpenAITools(request.tools) } : {}),
      ...(request.maxTokens !== undefined
        ? this.config.kind === 'openai'
          ? { max_completion_tokens: request.maxTokens }
          : { max_tokens: request.maxTokens }
        : {}),
    }

    return streamReply(
      () => client.chat.completions.create(params, signal ? { signal } : undefined),
      (text) => new ChunkAssembler(text),
      onText,
      sdkErrors,
      { ...this.#failure, signal },
    )
  }
}

/** A streamed completion put together chunk by chunk: text goes on as it comes, tool calls from their deltas. */
class ChunkAssembler implements ReplyAssembler<OpenAI.ChatCompletionChunk> {
  #finishReason: string | null = null
  #usage: Usage | null = null
  readonly #calls = new ToolCallAccumulator()

  constructor(private readonly text: ReplyText) {}

  add(chunk: OpenAI.ChatCompletionChunk): void {
    if (chunk.usage) {
      this.#usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 }
    }
    const choice = chunk.choices?.[0]
    if (!choice) return
    const delta = choice.delta
    this.text.add(delta?.content)
    if (delta?.tool_calls) for (const tc of delta.tool_calls) this.#calls.add(tc)
    if (choice.finish_reason) this.#finishReason = choice.finish_reason
  }

  finish(): Omit<ModelResult, 'text'> {
    const toolCalls = this.#calls.result()
    return {
      toolCalls,
      usage: this.#usage,
      stopReason: normaliseFinishReason(this.#finishReason, toolCalls.length > 0),
    }
  }
}

const sdkErrors = sdkErrorsOf(OpenAI, apiErrorMessage)

/** The provider's own message, without the SDK's "<status> " prefix. */
function apiErrorMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  // The SDK types the parsed body as `Object`; the rule takes that cast for a no-op, tsc needs it.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const body = err.error as { message?: unknown } | undefined
  if (body && typeof body.message === 'string' && body.message) return body.message
  return err.message.replace(/^\d{3}\s+/, '')
}

export function normaliseFinishReason(reason: string | null, hasToolCalls: boolean): string {
  switch (reason) {
    case 'stop':
      // Some compatible servers report 'stop' even when the turn ends in tool calls.
      return hasToolCalls ? 'tool_calls' : 'end'
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls'
    case 'length':
      return 'max_tokens'
    case null:
      return hasToolCalls ? 'tool_calls' : 'unknown'
    default:
      return reason
  }
}

type ToolCallDelta = OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall

/** Assembles streamed tool calls: deltas are keyed by `index`; the id and name come once, arguments in pieces. */
class ToolCallAccumulator {
  readonly #calls: { id: string; name: string; args: string }[] = []
  readonly #byIndex = new Map<number, { id: string; name: string; args: string }>()

  add(delta: ToolCallDelta): void {
    let call =
      delta.index !== undefined && delta.index !== null
        ? this.#byIndex.get(delta.index)
        : this.#calls[this.#calls.length - 1]
    // A different id at an index already in use means the server reused indexes for a new call.
    if (!call || (delta.id && call.id && delta.id !== call.id)) {
      call = { id: delta.id ?? '', name: '', args: '' }
      this.#calls.push(call)
      if (delta.index !== undefined && delta.index !== null) this.#byIndex.set(delta.index, call)
    }
    if (delta.id && !call.id) call.id = delta.id
    const name = delta.function?.name
    if (name) {
      // OpenAI sends the name once; tolerate servers that repeat it whole or send it in pieces.
      call.name = call.name && !name.startsWith(call.name) ? call.name + name : name
    }
    if (delta.function?.arguments) call.args += delta.function.arguments
  }

  result(): ToolCall[] {
    return this.#calls.map((c, i) => ({
      id: c.id || `call_${i}_${Math.random().toString(36).slice(2, 10)}`,
      name: c.name,
      argumentsText: c.args,
    }))
  }
}

export function toOpenAITools(tools: ToolSpec[]): OpenAI.ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }))
}

/** A user message with images: its text (none when the images are the message), then each image as a data: URL. */
function openAIUserParts(text: string, images: ImageInput[]): OpenAI.ChatCompletionContentPart[] {
  return [
    ...(text.trim() ? [{ type: 'text' as const, text }] : []),
    ...images.map((i) => ({ type: 'image_url' as const, image_url: { url: `data:${i.mediaType};base64,${i.data}` } })),
  ]
}

export function toOpenAIMessages(system: string, messages: ChatMessage[]): OpenAI.ChatCompletionMessageParam[] {
  const out: OpenAI.ChatCompletionMessageParam[] = []
  if (system) out.push({ role: 'system', content: system })
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.images?.length ? openAIUserParts(m.content, m.images) : m.content })
        break
      case 'assistant': {
        const toolCalls = m.toolCalls ?? []
        if (toolCalls.length > 0) {
          out.push({
            role: 'assistant',
            content: m.content ? m.content : null,
            tool_calls: toolCalls.map((tc) => ({
              id: tc.id,
              type: 'function',
              function: { name: tc.name, arguments: tc.argumentsText },
            })),
          })
        } else {
          out.push({ role: 'assistant', content: m.content })
        }
        break
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content })
        break
    }
  }
  return out
}
