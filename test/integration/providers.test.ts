import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProvider } from '../../electron/main/runtime/providers'
import type {
  ChatMessage,
  ModelRequest,
  ModelResult,
  ProviderConfig,
  ToolSpec,
} from '../../electron/main/runtime/providers/types'
import { ProviderError } from '../../electron/main/runtime/providers/types'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'

const KEY = 'sk-test-SECRET-0123456789'
const ANT_KEY = 'sk-ant-test-SECRET-9876543210'

const tools: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'List a directory',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
]

let server: ModelServer

beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.requests.length = 0
  expect(server.pending).toBe(0)
})

function openai(overrides: Partial<ProviderConfig> = {}, maxRetries = 1) {
  return createProvider(
    { kind: 'openai', model: 'gpt-test', apiKey: KEY, baseURL: server.openaiBaseURL, ...overrides },
    { maxRetries, env: {} },
  )
}
function anthropic(overrides: Partial<ProviderConfig> = {}, maxRetries = 1) {
  return createProvider(
    { kind: 'anthropic', model: 'claude-test', apiKey: ANT_KEY, baseURL: server.anthropicBaseURL, ...overrides },
    { maxRetries, env: {} },
  )
}

function req(messages: ChatMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are a careful engineer.', messages, tools, ...extra }
}

async function run(
  provider: ReturnType<typeof createProvider>,
  request: ModelRequest,
): Promise<{ result: ModelResult; deltas: string[] }> {
  const deltas: string[] = []
  const result = await provider.complete(request, (d) => deltas.push(d))
  return { result, deltas }
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError)
    return err as ProviderError
  }
  throw new Error('expected the call to fail')
}

/** @anthropic-ai/sdk 1.x sends the API key as `Authorization: Bearer`; older versions used `x-api-key`. */
function anthropicKeyOf(r: RecordedRequest): string | undefined {
  const header = r.headers['x-api-key']
  if (typeof header === 'string') return header
  return r.headers.authorization?.replace(/^Bearer /, '')
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = http.createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  const { port } = s.address() as AddressInfo
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

/** The conversation used by both mapping tests. */
const history: ChatMessage[] = [
  { role: 'user', content: 'Look at a.ts and the src folder.' },
  {
    role: 'assistant',
    content: 'Reading both.',
    toolCalls: [
      { id: 'call_A', name: 'read_file', argumentsText: '{"path":"a.ts"}' },
      { id: 'call_B', name: 'list_dir', argumentsText: '{"path": "src"' }, // malformed (truncated)
    ],
  },
  { role: 'tool', toolCallId: 'call_A', name: 'read_file', content: 'export const a = 1' },
  { role: 'tool', toolCallId: 'call_B', name: 'list_dir', content: 'bad arguments', isError: true },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_C', name: 'read_file', argumentsText: '{"path":"b.ts"}' }],
  },
  { role: 'tool', toolCallId: 'call_C', name: 'read_file', content: 'export const b = 2' },
  { role: 'user', content: 'Also, be brief.' },
]

describe('OpenAI provider (real SDK against the local server)', () => {
  it('streams text deltas in order and reports usage', async () => {
    server.enqueue({ text: 'Hello from the scripted model!', chunkSize: 5, usage: { input: 42, output: 7 } })
    const { result, deltas } = await run(openai(), req([{ role: 'user', content: 'hi' }]))

    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas).toEqual(['Hello', ' from', ' the ', 'scrip', 'ted m', 'odel!'])
    expect(result.text).toBe('Hello from the scripted model!')
    expect(result.toolCalls).toEqual([])
    expect(result.usage).toEqual({ inputTokens: 42, outputTokens: 7 })
    expect(result.stopReason).toBe('end')

    const [r] = server.requests
    expect(r!.format).toBe('openai')
    expect(r!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(r!.body.model).toBe('gpt-test')
    expect(r!.body.stream).toBe(true)
    expect(r!.body.stream_options).toEqual({ include_usage: true })
    expect(r!.body.messages).toEqual([
      { role: 'system', content: 'You are a careful engineer.' },
      { role: 'user', content: 'hi' },
    ])
    expect(r!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file from the workspace',
          parameters: tools[0]!.parameters,
        },
      },
      {
        type: 'function',
        function: { name: 'list_dir', description: 'List a directory', parameters: tools[1]!.parameters },
      },
    ])
  })

  it('assembles parallel tool calls from interleaved deltas by index', async () => {
    server.enqueue({
      text: 'Let me look.',
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: { path: 'src/very/long/path/name.ts' } },
        { id: 'call_2', name: 'list_dir', arguments: { path: 'electron/main' } },
      ],
      chunkSize: 3,
      interleaveToolCalls: true,
    })
    const { result } = await run(openai(), req([{ role: 'user', content: 'go' }]))
    expect(result.text).toBe('Let me look.')
    expect(result.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', argumentsText: '{"path":"src/very/long/path/name.ts"}' },
      { id: 'call_2', name: 'list_dir', argumentsText: '{"path":"electron/main"}' },
    ])
    expect(result.stopReason).toBe('tool_calls')
  })

  it('passes malformed tool-call arguments through verbatim', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_x', name: 'read_file', arguments: '{"path": "a.ts",, oops' }] })
    const { result } = await run(openai(), req([{ role: 'user', content: 'go' }]))
    expect(result.toolCalls).toEqual([{ id: 'call_x', name: 'read_file', argumentsText: '{"path": "a.ts",, oops' }])
  })

  it('maps assistant tool calls and tool results into the request', async () => {
    server.enqueue({ text: 'ok' })
    await run(openai(), req(history))
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are a careful engineer.' },
      { role: 'user', content: 'Look at a.ts and the src folder.' },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'call_A', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { id: 'call_B', type: 'function', function: { name: 'list_dir', arguments: '{"path": "src"' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A', content: 'export const a = 1' },
      { role: 'tool', tool_call_id: 'call_B', content: 'bad arguments' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_C', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_C', content: 'export const b = 2' },
      { role: 'user', content: 'Also, be brief.' },
    ])
  })

  it('openai-compatible works without a key (placeholder) and sends max_tokens', async () => {
    server.enqueue({ text: 'local model here' })
    const provider = createProvider(
      { kind: 'openai-compatible', model: 'llama-local', baseURL: server.openaiBaseURL },
      { maxRetries: 0, env: {} },
    )
    expect(provider.config).toEqual({ kind: 'openai-compatible', model: 'llama-local', baseURL: server.openaiBaseURL })
    const { result } = await run(provider, req([{ role: 'user', content: 'hi' }], { maxTokens: 256, tools: [] }))
    expect(result.text).toBe('local model here')
    const [r] = server.requests
    expect(r!.headers.authorization).toBe('Bearer not-needed')
    expect(r!.body.max_tokens).toBe(256)
    expect(r!.body.tools).toBeUndefined()
  })

  it('falls back to OPENAI_API_KEY from the env and never exposes the key on the provider', async () => {
    server.enqueue({ text: 'ok' })
    const provider = createProvider(
      { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL },
      { env: { OPENAI_API_KEY: 'sk-from-env-123' } },
    )
    await run(provider, req([{ role: 'user', content: 'hi' }], { maxTokens: 100 }))
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env-123')
    expect(server.requests[0]!.body.max_completion_tokens).toBe(100)
    expect(JSON.stringify(provider)).not.toContain('sk-from-env-123')
    expect(JSON.stringify(openai())).not.toContain(KEY)
  })

  it('reports provider_auth without any request when no key is configured', async () => {
    const provider = createProvider({ kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL }, { env: {} })
    const err = await failure(provider.complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_auth')
    expect(err.message).toMatch(/OPENAI_API_KEY/)
    expect(server.requests).toHaveLength(0)
  })

  it('retries a 429 with retry-after: 0 and then succeeds', async () => {
    // Beside it, a control call told to wait 300 ms (retry-after-ms), less than the SDK's shortest default backoff
    // (375 ms). Our retry arrives first only if retry-after: 0 was honoured as no wait at all.
    const arrivals: string[] = []
    const reply = (r: RecordedRequest): ScriptedReply => {
      const who = r.body.messages.at(-1).content as string
      const retry = arrivals.includes(who)
      arrivals.push(retry ? `${who} retry` : who)
      if (retry) return { text: `${who}: second time lucky` }
      return {
        status: 429,
        headers: who === 'ours' ? { 'retry-after': '0' } : { 'retry-after-ms': '300' },
        errorMessage: 'Rate limit reached',
      }
    }
    server.enqueue(reply, reply, reply, reply)
    const [ours, control] = await Promise.all([
      run(openai({}, 2), req([{ role: 'user', content: 'ours' }])),
      run(openai({}, 2), req([{ role: 'user', content: 'control' }])),
    ])
    expect(ours.result.text).toBe('ours: second time lucky')
    expect(control.result.text).toBe('control: second time lucky')
    expect(arrivals.slice(0, 2).sort()).toEqual(['control', 'ours'])
    expect(arrivals.slice(2)).toEqual(['ours retry', 'control retry'])
    // The retry is the SDK's, of the same request.
    const sent = server.requests.filter((r) => r.body.messages.at(-1).content === 'ours')
    expect(sent).toHaveLength(2)
    expect(sent[1]!.rawBody).toBe(sent[0]!.rawBody)
  })

  it('maps a 429 that outlasts the retries to provider_rate_limited', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '0' }, errorMessage: 'Rate limit reached for gpt-test' },
      { status: 429, headers: { 'retry-after': '0' }, errorMessage: 'Rate limit reached for gpt-test' },
    )
    const err = await failure(openai({}, 1).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_rate_limited')
    expect(err.status).toBe(429)
    expect(err.message).toContain('Rate limit reached for gpt-test')
    expect(server.requests).toHaveLength(2)
  })

  it('maps 401 to provider_auth with the server message and without the key', async () => {
    server.enqueue({
      status: 401,
      errorMessage: `Incorrect API key provided: ${KEY}. You can find your API key at example.invalid.`,
    })
    const err = await failure(openai({}, 3).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_auth')
    expect(err.status).toBe(401)
    expect(err.message).toContain('Incorrect API key provided')
    expect(err.message).not.toContain(KEY)
    expect(err.message).not.toContain('SECRET')
    expect(server.requests).toHaveLength(1) // 401 is not retried
  })

  it('maps 403 to provider_auth', async () => {
    server.enqueue({ status: 403, errorMessage: 'Project does not have access to model gpt-test' })
    const err = await failure(openai().complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_auth')
    expect(err.message).toContain('Project does not have access to model gpt-test')
  })

  it('maps other statuses to provider_error with the status', async () => {
    server.enqueue({ status: 500, errorMessage: 'The server had an error' })
    const err = await failure(openai({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_error')
    expect(err.status).toBe(500)
    expect(err.message).toContain('The server had an error')
  })

  it('maps an unreachable server to provider_unreachable', async () => {
    const port = await deadPort()
    const err = await failure(
      openai({ baseURL: `http://127.0.0.1:${port}/v1` }, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}),
    )
    expect(err.code).toBe('provider_unreachable')
    expect(err.message).toContain(`127.0.0.1:${port}`)
    expect(err.message).not.toContain(KEY)
  })

  it('aborts mid-stream through request.signal', async () => {
    server.enqueue({ text: 'This reply never finishes', hang: true })
    const controller = new AbortController()
    let firstDelta!: () => void
    const gotDelta = new Promise<void>((r) => (firstDelta = r))
    const deltas: string[] = []
    const call = openai().complete(req([{ role: 'user', content: 'hi' }], { signal: controller.signal }), (d) => {
      deltas.push(d)
      firstDelta()
    })
    await gotDelta
    controller.abort()
    const err = await failure(call)
    expect(err.code).toBe('aborted')
    expect(deltas[0]).toBe('This')
    expect('This reply never finishes'.startsWith(deltas.join(''))).toBe(true)
  })

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const err = await failure(
      openai().complete(req([{ role: 'user', content: 'hi' }], { signal: controller.signal }), () => {}),
    )
    expect(err.code).toBe('aborted')
    expect(server.requests).toHaveLength(0)
  })

  it('maps a connection dropped mid-stream to a ProviderError', async () => {
    server.enqueue({ text: 'partial answer', disconnect: true })
    const err = await failure(openai({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_unreachable')
    expect(err.message).toContain('lost mid-reply')
  })

  it('honours timeoutMs', async () => {
    server.enqueue({ text: 'too late', delayMs: 1000 })
    const provider = createProvider(
      { kind: 'openai', model: 'gpt-test', apiKey: KEY, baseURL: server.openaiBaseURL },
      { maxRetries: 0, timeoutMs: 50, env: {} },
    )
    const err = await failure(provider.complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_unreachable')
    expect(err.message).toContain('timed out')
  })

  it('maps an in-stream error event to provider_error', async () => {
    server.enqueue({ text: 'partial', streamError: 'The server had an error while processing your request.' })
    const err = await failure(openai({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_error')
    expect(err.message).toContain('The server had an error while processing your request.')
  })

  it('rethrows an exception from onText unchanged', async () => {
    server.enqueue({ text: 'some text' })
    const boom = new Error('listener broke')
    await expect(
      openai().complete(req([{ role: 'user', content: 'hi' }]), () => {
        throw boom
      }),
    ).rejects.toBe(boom)
  })
})

describe('Anthropic provider (real SDK against the local server)', () => {
  it('streams text and assembles a tool_use block', async () => {
    server.enqueue({
      text: 'I will read it.',
      toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'electron/main/index.ts' } }],
      chunkSize: 4,
      usage: { input: 120, output: 33 },
    })
    const { result, deltas } = await run(anthropic(), req([{ role: 'user', content: 'read index' }]))
    expect(deltas).toEqual(['I wi', 'll r', 'ead ', 'it.'])
    expect(result.text).toBe('I will read it.')
    expect(result.toolCalls).toEqual([
      { id: 'toolu_1', name: 'read_file', argumentsText: '{"path":"electron/main/index.ts"}' },
    ])
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 33 })
    expect(result.stopReason).toBe('tool_calls')

    const [r] = server.requests
    expect(r!.format).toBe('anthropic')
    expect(r!.path).toBe('/v1/messages')
    expect(anthropicKeyOf(r!)).toBe(ANT_KEY)
    expect(r!.body.model).toBe('claude-test')
    expect(r!.body.stream).toBe(true)
    expect(r!.body.system).toEqual([
      { type: 'text', text: 'You are a careful engineer.', cache_control: { type: 'ephemeral' } },
    ])
    expect(typeof r!.body.max_tokens).toBe('number')
    expect(r!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read index', cache_control: { type: 'ephemeral' } }] },
    ])
    expect(r!.body.tools).toEqual([
      { name: 'read_file', description: 'Read a file from the workspace', input_schema: tools[0]!.parameters },
      {
        name: 'list_dir',
        description: 'List a directory',
        input_schema: tools[1]!.parameters,
        cache_control: { type: 'ephemeral' },
      },
    ])
  })

  it('streams plain text with end_turn', async () => {
    server.enqueue({ text: 'Just text.', chunkSize: 2, usage: { input: 5, output: 4 } })
    const { result, deltas } = await run(anthropic(), req([{ role: 'user', content: 'hi' }], { maxTokens: 500 }))
    expect(deltas.join('')).toBe('Just text.')
    expect(deltas.length).toBe(5)
    expect(result).toEqual({
      text: 'Just text.',
      toolCalls: [],
      usage: { inputTokens: 5, outputTokens: 4 },
      stopReason: 'end',
    })
    expect(server.requests[0]!.body.max_tokens).toBe(500)
  })

  it('assembles parallel tool_use blocks and passes malformed input through verbatim', async () => {
    server.enqueue({
      toolCalls: [
        { id: 'toolu_a', name: 'read_file', arguments: { path: 'a.ts' } },
        { id: 'toolu_b', name: 'list_dir', arguments: '{"path": "src"' },
      ],
      chunkSize: 3,
    })
    const { result } = await run(anthropic(), req([{ role: 'user', content: 'go' }]))
    expect(result.text).toBe('')
    expect(result.toolCalls).toEqual([
      { id: 'toolu_a', name: 'read_file', argumentsText: '{"path":"a.ts"}' },
      { id: 'toolu_b', name: 'list_dir', argumentsText: '{"path": "src"' },
    ])
  })

  it('maps tool calls to tool_use blocks and tool results to one user message of tool_result blocks', async () => {
    server.enqueue({ text: 'ok' })
    await run(anthropic(), req(history))
    const body = server.requests[0]!.body
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a careful engineer.', cache_control: { type: 'ephemeral' } },
    ])
    expect(body.messages).toEqual([
      { role: 'user', content: 'Look at a.ts and the src folder.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', id: 'call_A', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'call_B', name: 'list_dir', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_A', content: 'export const a = 1' },
          { type: 'tool_result', tool_use_id: 'call_B', content: 'bad arguments', is_error: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_C', name: 'read_file', input: { path: 'b.ts' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_C', content: 'export const b = 2' },
          { type: 'text', text: 'Also, be brief.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ])
  })

  it('marks the prompt-cache breakpoints: last tool, the system prompt before its notices, the last message', async () => {
    const stable = 'You are Tess.\n\n# Brief\n## Your tasks\n- T-1'
    const notices = '## Notices since your last step (read these first)\n- D-1 changed'
    const asked = [...history.slice(0, 6)] // ends with a tool result: the breakpoint goes on it
    server.enqueue({ text: 'ok' }, { text: 'ok' })
    await run(anthropic(), req(asked, { system: `${stable}\n\n${notices}` }))
    await run(anthropic(), req(asked, { system: stable }))
    const [withNotices, without] = server.requests.map((r) => r.body)
    // The notices come and go after the breakpoint: the stable part is the same text, cached, in both calls.
    expect(withNotices.system).toEqual([
      { type: 'text', text: stable, cache_control: { type: 'ephemeral' } },
      { type: 'text', text: notices },
    ])
    expect(without.system).toEqual([{ type: 'text', text: stable, cache_control: { type: 'ephemeral' } }])
    expect(withNotices.tools.map((t: { cache_control?: unknown }) => t.cache_control ?? null)).toEqual([
      null,
      { type: 'ephemeral' },
    ])
    const last = withNotices.messages.at(-1)
    expect(last.content.at(-1)).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_C',
      content: 'export const b = 2',
      cache_control: { type: 'ephemeral' },
    })
    // One breakpoint per message list, on its end only (the API allows four in all).
    const marks = JSON.stringify(withNotices).split('"cache_control"').length - 1
    expect(marks).toBe(3)
  })

  it('maps 401 to provider_auth with the server message and without the key', async () => {
    server.enqueue({ status: 401, errorMessage: `invalid x-api-key ${ANT_KEY}` })
    const err = await failure(anthropic({}, 3).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_auth')
    expect(err.message).toContain('invalid x-api-key')
    expect(err.message).not.toContain(ANT_KEY)
    expect(server.requests).toHaveLength(1)
  })

  it('retries a 429 (retry-after-ms) and then succeeds', async () => {
    server.enqueue(
      {
        status: 429,
        headers: { 'retry-after-ms': '1' },
        errorMessage: 'Number of request tokens has exceeded your rate limit',
      },
      { text: 'fine now' },
    )
    const { result } = await run(anthropic({}, 2), req([{ role: 'user', content: 'hi' }]))
    expect(result.text).toBe('fine now')
    expect(server.requests).toHaveLength(2)
  })

  it('maps a persistent 429 to provider_rate_limited', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '1' }, errorMessage: 'slow down' })
    const err = await failure(anthropic({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_rate_limited')
    expect(err.message).toContain('slow down')
  })

  it('maps an unreachable server to provider_unreachable', async () => {
    const port = await deadPort()
    const err = await failure(
      anthropic({ baseURL: `http://127.0.0.1:${port}` }, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}),
    )
    expect(err.code).toBe('provider_unreachable')
    expect(err.message).not.toContain(ANT_KEY)
  })

  it('aborts mid-stream through request.signal', async () => {
    server.enqueue({
      text: 'Never ending story',
      toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }],
      hang: true,
    })
    const controller = new AbortController()
    let firstDelta!: () => void
    const gotDelta = new Promise<void>((r) => (firstDelta = r))
    const call = anthropic().complete(req([{ role: 'user', content: 'hi' }], { signal: controller.signal }), () =>
      firstDelta(),
    )
    await gotDelta
    controller.abort()
    const err = await failure(call)
    expect(err.code).toBe('aborted')
  })

  it('maps a connection dropped mid-stream to provider_unreachable', async () => {
    server.enqueue({
      text: 'partial answer',
      toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }],
      disconnect: true,
    })
    const err = await failure(anthropic({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_unreachable')
    expect(err.message).toContain('lost mid-reply')
  })

  it('maps an in-stream error event (overloaded) to provider_error', async () => {
    server.enqueue({ text: 'partial', streamError: 'Overloaded' })
    const err = await failure(anthropic({}, 0).complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_error')
    expect(err.message).toContain('Overloaded')
  })

  it('uses ANTHROPIC_API_KEY from the env, and reports provider_auth when there is none', async () => {
    server.enqueue({ text: 'ok' })
    const withEnv = createProvider(
      { kind: 'anthropic', model: 'claude-test', baseURL: server.anthropicBaseURL },
      { env: { ANTHROPIC_API_KEY: 'sk-ant-env-456' } },
    )
    await run(withEnv, req([{ role: 'user', content: 'hi' }]))
    expect(anthropicKeyOf(server.requests[0]!)).toBe('sk-ant-env-456')

    const without = createProvider(
      { kind: 'anthropic', model: 'claude-test', baseURL: server.anthropicBaseURL },
      { env: {} },
    )
    const err = await failure(without.complete(req([{ role: 'user', content: 'hi' }]), () => {}))
    expect(err.code).toBe('provider_auth')
    expect(server.requests).toHaveLength(1)
  })
})

describe('model-server fixture', () => {
  it('answers 500 "no scripted reply" when the queue is empty, and serves non-streaming JSON', async () => {
    const res = await fetch(`${server.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [] }),
    })
    expect(res.status).toBe(500)
    expect(await res.text()).toContain('model-server: no scripted reply')

    server.enqueue({ text: 'plain', toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'a' } }] })
    const json = await (
      await fetch(`${server.anthropicBaseURL}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [] }),
      })
    ).json()
    expect(json.content).toEqual([
      { type: 'text', text: 'plain' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
    ])
    expect(json.stop_reason).toBe('tool_use')
    const reqs = await server.waitForRequests(2, 1000)
    expect(reqs.map((r) => r.format)).toEqual(['openai', 'anthropic'])
  })
})
