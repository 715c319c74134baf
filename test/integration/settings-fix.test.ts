/**
 * A member stopped on a refused key (issue 31, "the board hides member trouble"): its session carries a stable
 * error code the UI offers the settings for, and fixing the key in those settings runs the failed message again,
 * then what was queued behind it — nothing is typed again. An edit that leaves the provider as it was keeps the error
 * (and its Retry).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo } from '../../shared/schemas'
import { onlyKey, type RecordedRequest } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { scriptedOpenAI, workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let m: Member

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, server: { unscripted: onlyKey('sk-test') } })
  m = await t.member('Impl', { role: 'implementer', provider: { ...scriptedOpenAI(t.server), apiKey: 'sk-wrong' } })
})
afterEach(() => t.cleanup())

const lastUserText = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((x) => x.role === 'user').at(-1)?.content

describe('a member stopped on a refused key', () => {
  it('says provider_auth on its session; the fixed key sends the failed message, then the queued one', async () => {
    const task = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Search', assigneeId: m.id })
    const failed = sessionState(t.core, m.id, 'error', { queued: 'any' })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Start T-1', taskId: task.id })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'and then this' })
    const info = (await failed).payload.session
    expect(info).toMatchObject({ state: 'error', errorCode: 'provider_auth' })
    expect(info.error).toContain('Incorrect API key provided')
    const listed = (await t.core.invoke('sessions.list', { workspaceId: t.ws.id })).find((s) => s.memberId === m.id)
    expect(listed).toMatchObject({ state: 'error', errorCode: 'provider_auth', queued: 1 })

    // An edit that does not touch the provider fixes nothing: the error and what it offers stay.
    await t.core.invoke('members.update', { memberId: m.id, role: 'builder' })
    expect(await t.core.invoke('sessions.get', { memberId: m.id })).toMatchObject({
      state: 'error',
      errorCode: 'provider_auth',
      queued: 1,
    })

    // The key fixed in the settings: the failed message goes out again, then the queued one.
    t.server.enqueue({ text: 'Started on T-1.' }, { text: 'Done that too.' })
    const idle = sessionState(t.core, m.id, 'idle')
    await t.core.invoke('members.update', { memberId: m.id, provider: scriptedOpenAI(t.server) })
    const after = (await idle).payload.session
    expect(after).toMatchObject({ error: null, errorCode: null, queued: 0 })
    const answered = t.server.requests.filter((r) => r.headers.authorization === 'Bearer sk-test')
    expect(answered.map(lastUserText)).toEqual(['Start T-1', expect.stringMatching(/and then this$/)])
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    const retried = steps.filter((s) => s.kind === 'user' && s.text === 'Start T-1')
    expect(retried).toHaveLength(2)
    expect(retried[1]!.taskId).toBe(task.id)
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Done that too.' })
  })

  it('a member with no provider says no_provider', async () => {
    const bare = await t.member('Bare', { provider: undefined })
    const failed = sessionState(t.core, bare.id, 'error', { queued: 'any' })
    await t.core.invoke('sessions.send', { memberId: bare.id, text: 'hello' })
    expect((await failed).payload.session).toMatchObject({ errorCode: 'no_provider' } satisfies Partial<SessionInfo>)
  })
})
