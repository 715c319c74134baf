import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionInfo, Workspace } from '../../shared/schemas'
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

const toolMessages = (r: RecordedRequest) => (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool')

async function deny(reason?: string) {
  const m = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Impl',
    role: 'implementer',
    approval: 'ask',
    provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test' },
  })
  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'no' } }] }, { text: 'understood' })
  const waiting = waitForEvent<{ session: SessionInfo }>(t.core, (e) => e.event === 'session.state' && e.payload.session.state === 'waiting_approval')
  await t.core.invoke('sessions.send', { memberId: m.id, text: 'write b' })
  const call = (await waiting).payload.session.pendingApprovals[0]
  const idle = waitForEvent<{ session: SessionInfo }>(t.core, (e) => e.event === 'session.state' && e.payload.session.state === 'idle')
  await t.core.invoke('sessions.approve', { memberId: m.id, callId: call.callId, allow: false, ...(reason === undefined ? {} : { reason }) })
  await idle
  const [, second] = await server.waitForRequests(2)
  return { second: second, steps: (await t.core.invoke('sessions.get', { memberId: m.id })).steps }
}

describe('denying an approval', () => {
  it('with a reason: the agent receives it in the tool result and the step keeps it', async () => {
    const { second, steps } = await deny('use the existing notes file instead')
    expect(toolMessages(second).at(-1)?.content).toBe('Denied by the human: use the existing notes file instead (Do not retry it unchanged.)')
    expect(steps.find((s) => s.kind === 'tool')).toMatchObject({ status: 'denied', text: expect.stringContaining('use the existing notes file instead') })
    expect(existsSync(join(t.repoDir, 'b.txt'))).toBe(false)
  })

  it('without one: the agent is told the human denied it', async () => {
    const { second } = await deny()
    expect(toolMessages(second).at(-1)?.content).toBe('The human denied this call. (Do not retry it unchanged.)')
  })
})
