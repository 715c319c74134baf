/**
 * Anthropic Messages provider.
 *
 * Always streams; text deltas are forwarded as they arrive, tool_use blocks are assembled from their
 * input_json_delta pieces. Tool results go back as tool_result blocks inside one user message (consecutive
 * tool messages, and a user message right after them, are merged, tool results first, as the API requires).
 * Retries (429 / 5xx / connection failures, honouring retry-after-ms / retry-after) are left to the SDK.
 */
import type { ImageInput } from '../../../../shared/images'
import Anthropic from '@anthropic-ai/sdk'
import {
  publicConfig,
  ProviderError,
  type ChatMessage,
  type ModelProvider,
  type Usage,
  type ModelRequest,
  type ModelResult,
  type ProviderConfig,
  type ProviderOptions,
  type ToolCall,
  type ToolSpec,
} from './types'
import { abortedError, sdkErrorsOf } from './errors'
import { streamReply, type ProviderFailure, type ReplyAssembler, type ReplyText } from './stream'

/** Used when the request does not say: the Messages API requires max_tokens. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192

export class AnthropicProvider implements ModelProvider {
  readonly config: Readonly<Omit<ProviderConfig, 'apiKey'>>
  readonly #client: Anthropic | null
  readonly #failure: ProviderFailure

  constructor(config: ProviderConfig, options: ProviderOptions) {
    this.config = publicConfig(config)
    this.#failure = {
      label: 'Anthropic',
      where: config.baseURL ?? 'https://api.anthropic.com',
      key: options.apiKey,
    }
    this.#client = options.apiKey
      ? new Anthropic({
          apiKey: options.apiKey,
          ...(config.baseURL ? { baseURL: config.baseURL } : {}),
          maxRetries: options.maxRetries,
          ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        })
      : null
  }

  async complete(request: ModelRequest, onText: (delta: string) => void): Promise<ModelResult> {
    if (!this.#client) {
      throw new ProviderError(
        'provider_auth',
        'No Anthropic API key configured (set one for this member or the ANTHROPIC_API_KEY environment variable).',
      )
    }
    const client = this.#client
    const signal = request.signal
    if (signal?.aborted) throw abortedError()

    const params = anthropicParams(this.config.model, request)
    return streamReply(
      () => client.messages.create(params, signal ? { signal } : undefined),
      (text) => new MessageAssembler(text),
      onText,
      sdkErrors,
      { ...this.#failure, signal },
    )
  }
}

type StreamedBlock = { kind: 'tool'; id: string; name: string; json: string; startInput: unknown } | { kind: 'other' }

/** A streamed message put together event by event: text goes on as it comes, tool_use blocks from their pieces. */
class MessageAssembler implements ReplyAssembler<Anthropic.RawMessageStreamEvent> {
  #stopReason: string | null = null
  // Filled by message_start / message_delta; stays null when the server reports none.
  #usage: Usage | null = null
  readonly #blocks = new Map<number, StreamedBlock>()

  constructor(private readonly text: ReplyText) {}

  add(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start': {
        const u = event.message.usage
        if (u && typeof u.input_tokens === 'number') {
          this.#usage = { inputTokens: inputTokensOf(u), outputTokens: u.output_tokens ?? 0 }
        }
        break
      }
      case 'content_block_start': {
        const block = event.content_block
        if (block.type === 'tool_use') {
          this.#blocks.set(event.index, {
            kind: 'tool',
            id: block.id,
            name: block.name,
            json: '',
            startInput: block.input,
          })
        } else {
          this.#blocks.set(event.index, { kind: 'other' })
          if (block.type === 'text') this.text.add(block.text)
        }
        break
      }
      case 'content_block_delta': {
        const delta = event.delta
        if (delta.type === 'text_delta') this.text.add(delta.text)
        else if (delta.type === 'input_json_delta') {
          const block = this.#blocks.get(event.index)
          if (block?.kind === 'tool') block.json += delta.partial_json
        }
        break
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.#stopReason = event.delta.stop_reason
        if (event.usage) this.#addUsage(event.usage)
        break
      default:
        break
    }
  }

  /** message_delta usage is cumulative. */
  #addUsage(u: Anthropic.MessageDeltaUsage): void {
    const next: Usage = this.#usage ?? { inputTokens: 0, outputTokens: 0 }
    if (typeof u.output_tokens === 'number') next.outputTokens = u.output_tokens
    if (typeof u.input_tokens === 'number') next.inputTokens = inputTokensOf(u)
    if (typeof u.output_tokens === 'number' || typeof u.input_tokens === 'number') this.#usage = next
  }

  finish(): Omit<ModelResult, 'text'> {
    const toolCalls: ToolCall[] = []
    for (const [, block] of [...this.#blocks.entries()].sort((a, b) => a[0] - b[0])) {
      if (block.kind !== 'tool') continue
      const argumentsText = block.json !== '' ? block.json : JSON.stringify(block.startInput ?? {})
      toolCalls.push({ id: block.id, name: block.name, argumentsText })
    }
    return { toolCalls, usage: this.#usage, stopReason: normaliseStopReason(this.#stopReason, toolCalls.length > 0) }
  }
}

/** The input tokens of a call, whether read from the prompt cache, written to it, or neither. */
function inputTokensOf(u: {
  input_tokens: number | null
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}): number {
  return (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0)
}

const sdkErrors = sdkErrorsOf(Anthropic, apiErrorMessage)

/** The provider's own message (error.message of the body), without the SDK's "<status> {json}" rendering. */
function apiErrorMessage(err: InstanceType<typeof Anthropic.APIError>): string {
  if (err.apiMessage) return err.apiMessage
  // The SDK types the parsed body as `Object`; the rule takes that cast for a no-op, tsc needs it.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const body = err.error as { error?: { message?: unknown }; message?: unknown } | undefined
  if (body && typeof body.error?.message === 'string' && body.error.message) return body.error.message
  if (body && typeof body.message === 'string' && body.message) return body.message
  return err.message.replace(/^\d{3}\s+/, '')
}

/**
 * The request with its prompt-cache breakpoints. The API reads tools, then system, then messages; each
 * breakpoint caches everything before it, and a later call that starts with the same text reads it from the
 * cache (a tenth of the price, and faster). Three of the four allowed:
 * - the last tool: the tools never change within a member's session;
 * - the end of the stable system prompt: the member's instructions and the brief up to its notices, which come
 *   and go (runtime/brief.ts puts them last), so a notice costs its own text, not the whole prompt again;
 * - the last block of the last message: the next call of the same turn repeats this conversation and adds to it.
 * Below the model's minimum (1,024 tokens for most) the API ignores a breakpoint; it never refuses one.
 */
export function anthropicParams(model: string, request: ModelRequest): Anthropic.MessageCreateParamsStreaming {
  const tools = request.tools.length > 0 ? toAnthropicTools(request.tools) : []
  const last = tools.at(-1)
  if (last) last.cache_control = EPHEMERAL
  return {
    model,
    max_tokens: request.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: withLastBreakpoint(toAnthropicMessages(request.messages)),
    stream: true,
    ...(request.system ? { system: systemBlocks(request.system) } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  }
}

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' }

/** Where the brief's notices start (runtime/brief.ts): the part of the system prompt that changes between calls. */
export const VOLATILE_SYSTEM = '\n\n## Notices since your last step'

/** The system prompt as blocks: the stable part with a breakpoint, then the notices (if any) without one. */
export function systemBlocks(system: string): Anthropic.TextBlockParam[] {
  const at = system.indexOf(VOLATILE_SYSTEM)
  if (at <= 0) return [{ type: 'text', text: system, cache_control: EPHEMERAL }]
  return [
    { type: 'text', text: system.slice(0, at), cache_control: EPHEMERAL },
    { type: 'text', text: system.slice(at + 2) },
  ]
}

/** The last message's last block carries a breakpoint (a plain string turns into one text block for it). */
function withLastBreakpoint(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const last = messages.at(-1)
  if (!last) return messages
  const content: Anthropic.ContentBlockParam[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content]
  const end = content.at(-1)
  // Blocks that cannot carry one (thinking) or empty text (refused anyway) are left as they are.
  if (
    !end ||
    (end.type !== 'text' && end.type !== 'tool_result' && end.type !== 'tool_use' && end.type !== 'image') ||
    (end.type === 'text' && !end.text)
  )
    return messages
  content[content.length - 1] = { ...end, cache_control: EPHEMERAL }
  return [...messages.slice(0, -1), { ...last, content } as Anthropic.MessageParam]
}

export function normaliseStopReason(reason: string | null, hasToolCalls: boolean): string {
  switch (reason) {
    case 'end_turn':
      return hasToolCalls ? 'tool_calls' : 'end'
    case 'tool_use':
      return 'tool_calls'
    case 'max_tokens':
      return 'max_tokens'
    case null:
      return hasToolCalls ? 'tool_calls' : 'unknown'
    default:
      return reason
  }
}

export function toAnthropicTools(tools: ToolSpec[]): Anthropic.Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.parameters },
  }))
}

/** Parses the model's own argument text back into an object; malformed or non-object JSON becomes {}. */
function parseToolInput(argumentsText: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsText)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function anthropicImage(i: ImageInput): Anthropic.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: i.mediaType, data: i.data } }
}

export function toAnthropicMessages(messages: ChatMessage[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = []
  // The user message currently collecting tool results (and text that follows them), if the last one out is it.
  let openUser: Anthropic.ContentBlockParam[] | null = null

  for (const m of messages) {
    switch (m.role) {
      case 'tool': {
        const block: Anthropic.ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: m.toolCallId,
          content: m.content,
          ...(m.isError ? { is_error: true } : {}),
        }
        if (openUser && openUser.every((b) => b.type === 'tool_result')) {
          openUser.push(block)
        } else {
          openUser = [block]
          out.push({ role: 'user', content: openUser })
        }
        break
      }
      case 'user': {
        // Images go before their text (Anthropic's advice for image prompts); the API refuses an empty text block,
        // and a message of images alone has none.
        const images = (m.images ?? []).map(anthropicImage)
        const text: Anthropic.TextBlockParam[] =
          m.content.trim() || !images.length ? [{ type: 'text', text: m.content }] : []
        if (openUser) {
          openUser.push(...images, ...text)
        } else {
          openUser = [...images, ...text]
          out.push({ role: 'user', content: openUser })
        }
        break
      }
      case 'assistant': {
        const content: Anthropic.ContentBlockParam[] = []
        if (m.content) content.push({ type: 'text', text: m.content })
        for (const tc of m.toolCalls ?? []) {
          content.push({ type: 'tool_use', id: tc.id, name: tc.name, input: parseToolInput(tc.argumentsText) })
        }
        // The API rejects empty assistant turns; an empty reply carries nothing worth sending back.
        if (content.length === 0) break
        out.push({ role: 'assistant', content })
        openUser = null
        break
      }
    }
  }
  // Plain single-text user turns are sent as strings.
  return out.map((msg) =>
    msg.role === 'user' && Array.isArray(msg.content) && msg.content.length === 1 && msg.content[0]?.type === 'text'
      ? { role: 'user', content: msg.content[0].text }
      : msg,
  )
}
