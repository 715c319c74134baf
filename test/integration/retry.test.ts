import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let m: Member

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } } })
  server = t.server
  m = await t.member('Impl', { role: 'implementer' })
})
afterEach(() => t.cleanup())

/** The member's session in state `s` (idle: with nothing queued). */
const state = (s: SessionInfo['state']) => sessionState(t.core, m.id, s, { queued: s === 'idle' ? 0 : 'any' })
const lastUserText = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((x) => x.role === 'user').at(-1)?.content

describe('sessions.retry', () => {
  it('runs a failed model call again from the same message, without retyping', async () => {
    server.enqueue(
      { status: 500, headers: { 'x-should-retry': 'false' }, errorMessage: 'upstream exploded' },
      { text: 'Here is the answer.' },
    )
    const failed = state('error')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Summarise app.ts' })
    expect((await failed).payload.session.error).toMatch(/upstream exploded/)

    const answered = state('idle')
    const info = await t.core.invoke('sessions.retry', { memberId: m.id })
    expect(info.state).not.toBe('error')
    await answered
    // The model saw the same message again.
    const [first, second] = await server.waitForRequests(2)
    expect(lastUserText(first!)).toBe('Summarise app.ts')
    expect(lastUserText(second!)).toBe('Summarise app.ts')
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['model', 'error'],
      ['error', 'error'],
      ['user', 'done'],
      ['model', 'done'],
    ])
    expect(steps[3]!.text).toBe('Summarise app.ts')
    expect(steps[4]!.text).toBe('Here is the answer.')
    // The last turn succeeded: nothing to retry now.
    await rejectsWith(t.core.invoke('sessions.retry', { memberId: m.id }), 'invalid_transition')
  })

  it('puts the retried message ahead of messages queued behind the failed turn', async () => {
    // The first call hangs until it fails, so a second message queues behind it.
    server.enqueue({ text: 'partial', disconnect: true })
    const failed = state('error')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'first question' })
    await server.waitForRequests(1)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'second question' })
    await failed
    server.enqueue({ text: 'answer one' }, { text: 'answer two' })
    const done = state('idle')
    await t.core.invoke('sessions.retry', { memberId: m.id })
    await done
    const requests = await server.waitForRequests(3)
    expect(lastUserText(requests[1]!)).toBe('first question')
    expect(lastUserText(requests[2]!)).toMatch(/second question$/)
    const texts = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
      .filter((s) => s.kind === 'user')
      .map((s) => s.text)
    expect(texts).toEqual(['first question', 'first question', 'second question'])
  })

  it('refuses while the member works, and when there was no turn at all', async () => {
    await rejectsWith(t.core.invoke('sessions.retry', { memberId: m.id }), 'invalid_transition')
    server.enqueue({ text: 'partial', hang: true })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'work' })
    await server.waitForRequests(1)
    const e = await rejectsWith(t.core.invoke('sessions.retry', { memberId: m.id }), 'invalid_transition')
    expect(e.message).toMatch(/is working/)
    const stopped = state('idle')
    await t.core.invoke('sessions.interrupt', { memberId: m.id })
    await stopped
  })
})
