import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer

beforeEach(async () => {
  t = await workspaceWithTeam({ memberDefaults: () => ({ authority: 'decider' }) })
  server = t.server
})
afterEach(() => t.cleanup())

const member = (name: string): Promise<Member> => t.member(name)

const settled = (memberId: string) => sessionState(t.core, memberId, 'idle')

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
