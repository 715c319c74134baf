import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Workspace } from '../../shared/schemas'
import { makeCore, rejectsWith, waitForEvent, type TestCore } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'

let t: TestCore
let server: ModelServer
let ws: Workspace
let m: Member

beforeEach(async () => {
  server = await startModelServer()
  t = makeCore({ git: true, provider: { maxRetries: 0 } })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, isolation: 'shared' })
  m = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Impl',
    role: 'implementer',
    provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test' },
    approval: 'auto',
  })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

const state = (s: SessionInfo['state']) =>
  waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === m.id &&
      e.payload.session.state === s &&
      (s !== 'idle' || e.payload.session.queued === 0),
  )
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
