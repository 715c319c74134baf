/**
 * Issue 21, the provider's prompt cache: within a turn, each model call repeats the one before it and adds to it,
 * so the provider can read the prefix from its cache. OpenAI caches the longest prefix it saw (messages in order,
 * tools): the second call must begin with exactly the first call's messages and carry the same tools. Anthropic
 * caches up to its breakpoints: the second call's system blocks and tools are the first call's, the breakpoints
 * where the provider puts them (providers.test.ts), the first call's messages a prefix of the second's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { searchTimeout } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { scriptedOpenAI, workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } } })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

async function turn(kind: 'openai' | 'anthropic'): Promise<Member> {
  const provider =
    kind === 'openai'
      ? scriptedOpenAI(server)
      : { kind, model: 'claude-test', baseURL: server.anthropicBaseURL, apiKey: 'sk-ant-test' }
  const m = await t.member('Impl', { role: 'implementer', provider })
  const d = await searchTimeout(t.core, ws.id)
  await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Web search tool',
    assigneeId: m.id,
    decisionIds: [d.id],
  })
  server.enqueue(
    { toolCalls: [{ name: 'list_files', arguments: {} }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'app.ts' } }] },
    { text: 'Read them.' },
  )
  const idle = sessionState(t.core, m.id, 'idle', { timeoutMs: 15_000 })
  await t.core.invoke('sessions.send', { memberId: m.id, text: 'Look at the files.' })
  await idle
  expect(server.requests).toHaveLength(3)
  return m
}

const withoutMarks = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x)))

describe('prompt cache', () => {
  it('OpenAI: each call of a turn begins with exactly the previous call, tools the same', async () => {
    await turn('openai')
    const [a, b, c] = server.requests.map((r) => r.body)
    expect(b.messages.slice(0, a.messages.length)).toEqual(a.messages)
    expect(c.messages.slice(0, b.messages.length)).toEqual(b.messages)
    expect(b.tools).toEqual(a.tools)
    expect(c.messages.length).toBeGreaterThan(b.messages.length)
  })

  it('Anthropic: the same system blocks and tools each call, the previous messages a prefix', async () => {
    await turn('anthropic')
    const [a, b, c] = server.requests.map((r) => r.body)
    expect(b.system).toEqual(a.system)
    expect(b.tools).toEqual(a.tools)
    expect(a.system[0].cache_control).toEqual({ type: 'ephemeral' })
    // Only where the breakpoint sits differs: it moves to the end of the longer conversation.
    const [pa, pb] = [withoutMarks(a.messages) as unknown[], withoutMarks(b.messages) as unknown[]]
    const norm = (m: unknown) =>
      JSON.stringify(m).replace(
        /^\{"role":"user","content":"(.*)"\}$/,
        '{"role":"user","content":[{"type":"text","text":"$1"}]}',
      )
    expect(pb.slice(0, pa.length).map(norm)).toEqual(pa.map(norm))
    expect(withoutMarks(c.messages.slice(0, b.messages.length))).toEqual(withoutMarks(b.messages))
    expect(c.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' })
  })
})
