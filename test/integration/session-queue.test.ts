import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Workspace } from '../../shared/schemas'
import { makeCore, waitForEvent, type TestCore } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'

let t: TestCore
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  server = await startModelServer()
  t = makeCore({ git: true })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, isolation: 'shared' })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

function member(name: string): Promise<Member> {
  return t.core.invoke('members.create', {
    workspaceId: ws.id,
    name,
    role: name.toLowerCase(),
    provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test-key' },
    approval: 'auto',
    authority: 'decider',
  })
}

const settled = (memberId: string) =>
  waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === memberId &&
      e.payload.session.state === 'idle' &&
      e.payload.session.queued === 0,
  )

/** The conversation a request carried, without the system prompt: role and text of each entry. */
const conversation = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)

describe('messages queued behind a running turn', () => {
  it('each enters the view when its own turn starts, after the reply to the one before', async () => {
    const m = await member('Impl')
    server.enqueue(
      () => {
        // B and C arrive while A's turn is in flight: both wait in the inbox.
        void t.core.invoke('sessions.send', { memberId: m.id, text: 'message B' })
        void t.core.invoke('sessions.send', { memberId: m.id, text: 'message C' })
        return { text: 'reply to A' }
      },
      { text: 'reply to B' },
      { text: 'reply to C' },
    )
    const done = settled(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'message A' })
    await done
    const [a, b, c] = await server.waitForRequests(3)
    expect(conversation(a!)).toEqual(['user: message A'])
    expect(conversation(b!)).toEqual(['user: message A', 'assistant: reply to A', 'user: message B'])
    expect(conversation(c!)).toEqual([
      'user: message A',
      'assistant: reply to A',
      'user: message B',
      'assistant: reply to B',
      'user: message C',
    ])
  })
})
