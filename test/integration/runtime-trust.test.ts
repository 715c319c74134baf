/**
 * The runtime keeps writes guarded and faults named: harness writes wait under `ask`, approval cannot be
 * laundered through another member, refs stay inside the workspace, a restart is never blamed on the human,
 * a failed call does not swallow the next message, a poisoned history can be left behind, and missing usage
 * is "not reported", never 0.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import type { Member, SessionInfo, Step, Workspace } from '../../shared/schemas'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { sessionState, takeTurn } from '../fixtures/sessions'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 } },
    memberDefaults: () => ({ authority: 'decider' }),
  })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

function member(name: string, extra?: Record<string, unknown>): Promise<Member> {
  return t.member(name, extra)
}

/** The member's session in state `s` (idle: with nothing queued). */
const state = (memberId: string, s: SessionInfo['state']) =>
  sessionState(t.core, memberId, s, { queued: s === 'idle' ? 0 : 'any' })
const turn = (m: Member, text: string, end: SessionInfo['state'] = 'idle'): Promise<Step[]> =>
  takeTurn(t.core, { memberId: m.id, text }, { end, queued: end === 'idle' ? 0 : 'any' })

const lastUser = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').at(-1)?.content
const toolSteps = async (m: Member) =>
  (await t.core.invoke('sessions.get', { memberId: m.id })).steps.filter((s) => s.kind === 'tool')

describe('harness tools under approval "ask"', () => {
  it('create_task, update_decision and cancelling a task wait for the human; starting a task does not', async () => {
    const lead = await member('Lead', { approval: 'ask' })
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeout', statement: '30 s' })
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Search', assigneeId: lead.id })
    server.enqueue(
      { toolCalls: [{ name: 'update_task_status', arguments: { taskId: task.key, status: 'in_progress' } }] },
      { toolCalls: [{ name: 'create_task', arguments: { title: 'Cache' } }] },
      {
        toolCalls: [
          {
            name: 'update_decision',
            arguments: { decisionId: 'D-1', expectedVersion: 1, statement: '60 s', reason: 'slow' },
          },
        ],
      },
      { toolCalls: [{ name: 'update_task_status', arguments: { taskId: task.key, status: 'cancelled' } }] },
      { text: 'done' },
    )
    const asked: string[] = []
    const off = t.core.bus.on((e) => {
      if (e.event !== 'session.state' || e.payload.session.state !== 'waiting_approval') return
      const call = e.payload.session.pendingApprovals[0]
      asked.push(`${call!.name}:${String(JSON.parse(call!.argumentsText).status)}`)
      // Deny every one: nothing may change.
      void t.core.invoke('sessions.approve', { memberId: lead.id, callId: call!.callId, allow: false })
    })
    await turn(lead, 'go')
    off()
    expect(asked).toEqual(['create_task:undefined', 'update_decision:undefined', 'update_task_status:cancelled'])
    expect((await toolSteps(lead)).map((s) => s.status)).toEqual(['done', 'denied', 'denied', 'denied'])
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')
    expect(await t.core.invoke('tasks.list', { workspaceId: ws.id })).toHaveLength(1)
    expect((await t.core.invoke('decisions.get', { decisionId: d.id })).version).toBe(1)
  })

  it('an ask member cannot run tools through an auto member: delegated and messaged turns follow the stricter policy', async () => {
    await member('Lead', { approval: 'ask' })
    const lead = (await t.core.invoke('members.list', { workspaceId: ws.id }))[0]
    const impl = await member('Impl', { approval: 'auto' })
    server.enqueue(
      { toolCalls: [{ name: 'delegate', arguments: { memberId: 'Impl', task: 'write x.txt' } }] },
      // Impl's delegated turn: its write must wait for the human.
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
    )
    const waiting = state(impl.id, 'waiting_approval')
    await t.core.invoke('sessions.send', { memberId: lead!.id, text: 'get x written' })
    const call = (await waiting).payload.session.pendingApprovals[0]
    expect(call!.name).toBe('write_file')
    const implIdle = state(impl.id, 'idle')
    const leadIdle = state(lead!.id, 'idle')
    server.enqueue({ text: 'not written' }, { text: 'Impl could not' })
    await t.core.invoke('sessions.approve', { memberId: impl.id, callId: call!.callId, allow: false })
    await Promise.all([implIdle, leadIdle])

    // message_member carries the policy the same way; Impl's own messages from the human stay auto.
    // Lead's next call and Impl's first one race: each reply is chosen by who asks.
    const isImpl = (r: RecordedRequest) => String(r.body.messages[0].content).startsWith('You are Impl')
    const either = (impl: object, lead: object) => (r: RecordedRequest) => (isImpl(r) ? impl : lead)
    server.enqueue({ toolCalls: [{ name: 'message_member', arguments: { memberId: 'Impl', text: 'write y.txt' } }] })
    server.enqueue(
      either({ toolCalls: [{ name: 'write_file', arguments: { path: 'y.txt', content: 'y' } }] }, { text: 'sent' }),
    )
    server.enqueue(
      either({ toolCalls: [{ name: 'write_file', arguments: { path: 'y.txt', content: 'y' } }] }, { text: 'sent' }),
    )
    const waiting2 = state(impl.id, 'waiting_approval')
    const leadIdle2 = state(lead!.id, 'idle')
    await t.core.invoke('sessions.send', { memberId: lead!.id, text: 'tell Impl' })
    const call2 = (await waiting2).payload.session.pendingApprovals[0]
    await leadIdle2
    const idle2 = state(impl.id, 'idle')
    server.enqueue({ text: 'ok' })
    await t.core.invoke('sessions.approve', { memberId: impl.id, callId: call2!.callId, allow: true })
    await idle2
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'z.txt', content: 'z' } }] },
      { text: 'wrote z' },
    )
    const steps = await turn(impl, 'write z.txt yourself')
    expect(
      steps
        .filter((s) => s.kind === 'tool')
        .map((s) => `${s.tool?.argumentsText.includes('z.txt') ? 'z' : 'xy'}:${s.status}`),
    ).toEqual(['xy:denied', 'xy:done', 'z:done'])
  })
})

describe('refs stay inside the member’s workspace', () => {
  it('update_task_status with another workspace’s full task id is not found and changes nothing there', async () => {
    const otherRepo = join(t.repoDir, '..', 'other')
    mkdirSync(otherRepo)
    const other = await t.core.invoke('workspaces.open', { repoPath: otherRepo })
    const theirs = await t.core.invoke('tasks.create', { workspaceId: other.id, title: 'Theirs' })
    const m = await member('Impl')
    server.enqueue(
      { toolCalls: [{ name: 'update_task_status', arguments: { taskId: theirs.id, status: 'cancelled' } }] },
      { text: 'ok' },
    )
    const tools = (await turn(m, 'cancel it')).filter((s) => s.kind === 'tool')
    expect(tools[0]).toMatchObject({ status: 'error', text: expect.stringContaining('not_found') })
    expect((await t.core.invoke('tasks.get', { taskId: theirs.id })).status).toBe('todo')
  })
})

describe('faults get names', () => {
  it('a call waiting for approval when Concord stops is marked interrupted by a restart, never by the human', async () => {
    const m = await member('Impl', { approval: 'ask' })
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] })
    const waiting = state(m.id, 'waiting_approval')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'write a' })
    await waiting
    await t.core.close()
    const again = createCore({ dataDir: t.dataDir })
    try {
      const steps = (await again.invoke('sessions.get', { memberId: m.id })).steps
      const texts = steps.map((s) => s.text).join('\n')
      expect(texts).toContain('restart')
      expect(texts).not.toContain('by the human')
      expect(steps.find((s) => s.kind === 'tool')).toMatchObject({ status: 'interrupted' })
    } finally {
      await again.close()
      t.core = createCore({ dataDir: t.dataDir })
    }
  })

  it('a failed model call is answered by an error step, and the next message starts a turn with only its own text', async () => {
    const m = await member('Impl')
    server.enqueue({ status: 400, errorMessage: 'bad request: poisoned' })
    const steps = await turn(m, 'first message', 'error')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'error'])
    server.enqueue({ text: 'hello' })
    await turn(m, 'second message')
    expect(lastUser(server.requests[1]!)).toBe('second message')
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('first message')
  })

  it('sessions.reset starts a new conversation; the old steps stay in the store, out of the view', async () => {
    const m = await member('Impl')
    server.enqueue({ status: 400, errorMessage: 'poisoned' })
    await turn(m, 'poison', 'error')
    await rejectsWith(t.core.invoke('sessions.reset', { memberId: `${ws.id}-m99` }), 'not_found')
    const reset = waitForEvent(t.core, (e) => e.event === 'session.reset')
    await t.core.invoke('sessions.reset', { memberId: m.id })
    await reset
    expect((await t.core.invoke('sessions.get', { memberId: m.id })).steps).toEqual([])
    server.enqueue({ text: 'fresh' })
    const steps = await turn(m, 'start again')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model'])
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain('poison')
    // Still in the store: the export of the workspace keeps them.
    const store = t.core.harness.ctx(ws.id).store
    expect(store.steps.recent(Number(m.id.split('-m')[1]), 100).map((s) => s.text)).toContain('poison')
  })

  it('sessions.reset keeps the messages still queued, in the new conversation', async () => {
    const m = await member('Impl')
    server.enqueue({ status: 400, errorMessage: 'poisoned' })
    const failed = state(m.id, 'error')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'poison' })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'queued behind it' })
    await failed
    const idle = state(m.id, 'idle')
    server.enqueue({ text: 'answered' })
    await t.core.invoke('sessions.reset', { memberId: m.id })
    await idle
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => [s.kind, s.text])).toEqual([
      ['user', 'queued behind it'],
      ['model', 'answered'],
    ])
    expect(lastUser(server.requests.at(-1)!)).toBe('queued behind it')
  })

  it('a reply without usage records usage null and the figures count it as not reported', async () => {
    const m = await member('Impl')
    server.enqueue({ text: 'no usage here', noUsage: true })
    const steps = await turn(m, 'hi')
    expect(steps.at(-1)).toMatchObject({ kind: 'model', status: 'done', usage: null })
    const metrics = await t.core.invoke('metrics.get', { workspaceId: ws.id })
    expect(metrics.tokens.total).toEqual({ input: 0, output: 0, unreported: 1 })
    expect(metrics.tokens.perMember).toEqual([{ memberId: m.id, input: 0, output: 0, unreported: 1 }])
  })
})
