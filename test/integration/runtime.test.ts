import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Workspace } from '../../shared/schemas'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { scriptedOpenAI, workspaceWithTeam, type Team } from '../fixtures/workspace'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { apiTask, editToGraphQL } from '../fixtures/harness'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 2 } },
    memberDefaults: () => ({ authority: 'decider' }),
  })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const openai = () => scriptedOpenAI(server)
const anthropic = () => ({
  kind: 'anthropic' as const,
  model: 'claude-test',
  baseURL: server.anthropicBaseURL,
  apiKey: 'sk-ant-test',
})

function member(name: string, extra?: Record<string, unknown>): Promise<Member> {
  return t.member(name, extra)
}

const settled = (memberId: string, state: SessionInfo['state'] = 'idle') => sessionState(t.core, memberId, state)
const turn = (m: Member, text: string, state: SessionInfo['state'] = 'idle') =>
  takeTurn(t.core, { memberId: m.id, text }, { end: state })

const systemOf = (r: RecordedRequest) =>
  r.format === 'openai' ? (r.body.messages[0].content as string) : JSON.stringify(r.body.system)
const toolMessages = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string; tool_call_id?: string }[]).filter((m) => m.role === 'tool')

describe('agent loop', () => {
  it('runs a multi-step turn with parallel tool calls on a real repository, streaming every delta', async () => {
    const m = await member('Impl')
    server.enqueue(
      {
        toolCalls: [
          { name: 'list_files', arguments: {} },
          { name: 'read_file', arguments: { path: 'app.ts' } },
        ],
        usage: { input: 100, output: 20 },
      },
      { text: 'The answer constant is 42.', usage: { input: 150, output: 8 } },
    )
    const deltas: string[] = []
    t.core.bus.on((e) => {
      if (e.event === 'session.delta') deltas.push(e.payload.text)
    })
    const steps = await turn(m, 'What does app.ts export?')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'tool', 'tool', 'model'])
    expect(steps[1]!.toolCalls.map((c) => c.name)).toEqual(['list_files', 'read_file'])
    expect(steps[2]!.text).toContain('app.ts')
    expect(steps[3]!.text).toContain('export const answer = 42')
    expect(steps[4]).toMatchObject({
      text: 'The answer constant is 42.',
      status: 'done',
      usage: { input: 150, output: 8 },
    })
    expect(deltas.join('')).toContain('The answer constant is 42.')
    // The second request carries both tool results, paired with the calls.
    const second = server.requests[1]
    const results = toolMessages(second!)
    expect(results).toHaveLength(2)
    expect(results.map((r) => r.tool_call_id)).toEqual(steps[1]!.toolCalls.map((c) => c.id))
    const metrics = await t.core.invoke('metrics.get', { workspaceId: ws.id })
    expect(metrics.tokens.perMember).toEqual([{ memberId: m.id, input: 250, output: 28, unreported: 0 }])
  })

  it('speaks Anthropic Messages with tool use', async () => {
    const m = await member('Claude', { provider: anthropic() })
    server.enqueue({ toolCalls: [{ name: 'git_status', arguments: {} }] }, { text: 'Clean tree.' })
    const steps = await turn(m, 'status?')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'tool', 'model'])
    expect(server.requests[1]!.format).toBe('anthropic')
    const blocks = (server.requests[1]!.body.messages as { role: string; content: unknown }[]).at(-1)!.content as {
      type: string
    }[]
    expect(blocks.some((b) => b.type === 'tool_result')).toBe(true)
  })

  it('gives the notice and the new statement to a member mid-turn, before its very next model call', async () => {
    const m = await member('Impl')
    const { d, task } = await apiTask(t.core, ws.id, m)
    server.enqueue(
      () => {
        // The human edits the decision while the member's first call is in flight.
        void editToGraphQL(t.core, d)
        return { toolCalls: [{ name: 'list_files', arguments: {} }] }
      },
      { text: 'Switching to GraphQL.' },
    )
    const steps = await turn(m, 'Build the API')
    expect(systemOf(server.requests[0]!)).toContain('Use REST')
    const second = systemOf(server.requests[1]!)
    expect(second).toContain('D-1 v2 [accepted] "API": Use GraphQL')
    expect(second).toContain('NEEDS ADJUSTMENT')
    expect(second).toContain('Notices since your last step')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'tool', 'notice', 'model'])
    expect(await t.core.invoke('notices.list', { memberId: m.id, pending: true })).toEqual([])
    // The turn worked on the member's one task in progress: its tokens count for that task.
    const metrics = await t.core.invoke('metrics.get', { workspaceId: ws.id })
    expect(metrics.tokens.perTask.map((x) => x.taskId)).toEqual([task.id])
    expect(metrics.tokens.perTask[0]!.input).toBeGreaterThan(0)
  })

  it('submit_report records a report whose basis is the brief and whose artifact is HEAD', async () => {
    const m = await member('Tess')
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Build',
      assigneeId: m.id,
      decisionIds: [d.id],
    })
    server.enqueue({
      toolCalls: [
        {
          name: 'submit_report',
          arguments: {
            taskId: 'T-1',
            kind: 'test',
            verdict: 'pass',
            summary: 'all green',
            claims: [{ text: 'GET /items works', decisionIds: ['D-1'] }],
          },
        },
      ],
    })
    const steps = await turn(m, 'Test T-1')
    expect(steps.at(-1)).toMatchObject({ kind: 'tool', status: 'done' })
    expect(server.requests).toHaveLength(1) // the report ends the turn
    const [report] = await t.core.invoke('reports.list', { taskId: task.id })
    const head = (await import('node:child_process'))
      .execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' })
      .trim()
    expect(report).toMatchObject({
      authorId: m.id,
      kind: 'test',
      verdict: 'pass',
      validity: 'valid',
      artifact: { commit: head },
    })
    expect(report!.basis).toEqual([{ decisionId: d.id, version: 1, state: 'current' }])
    expect(report!.claims).toEqual([
      expect.objectContaining({ text: 'GET /items works', decisionIds: [d.id], state: 'valid' }),
    ])
  })

  it('turns malformed tool-call JSON, unknown tools and path escapes into error observations', async () => {
    const m = await member('Impl')
    symlinkSync('/etc', join(t.repoDir, 'etc-link'))
    server.enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: '{"path": "app.ts"' },
          { name: 'launch_rockets', arguments: {} },
          { name: 'read_file', arguments: { path: '../outside.txt' } },
          { name: 'read_file', arguments: { path: 'etc-link/passwd' } },
          { name: 'write_file', arguments: { path: '/tmp/evil.txt', content: 'x' } },
        ],
      },
      { text: 'ok' },
    )
    const steps = await turn(m, 'go')
    const tools = steps.filter((s) => s.kind === 'tool')
    expect(tools.every((s) => s.status === 'error' && s.tool?.isError)).toBe(true)
    expect(tools[0]!.text).toMatch(/not valid JSON/)
    expect(tools[1]!.text).toMatch(/unknown tool 'launch_rockets'/)
    expect(tools[2]!.text).toMatch(/path_outside_workspace/)
    expect(tools[3]!.text).toMatch(/path_outside_workspace/)
    expect(tools[4]!.text).toMatch(/path_outside_workspace/)
    expect(existsSync('/tmp/evil.txt')).toBe(false)
    expect(toolMessages(server.requests[1]!)).toHaveLength(5)
  })

  it('parses tool arguments once: invalid ones are refused before approval, run gets the parsed value', async () => {
    const m = await member('Impl', { approval: 'ask' })
    server.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes/x.txt' } },
          { name: 'ask_human', arguments: { question: '   REST or GraphQL?   ' } },
        ],
      },
      { text: 'ok' },
    )
    const steps = await turn(m, 'go')
    const tools = steps.filter((s) => s.kind === 'tool')
    expect(tools[0]).toMatchObject({
      status: 'error',
      text: expect.stringMatching(/^error \(invalid_arguments\): Invalid arguments for write_file: content: /),
    })
    expect(existsSync(join(t.repoDir, 'notes'))).toBe(false)
    // The schema trims the question; the tool sees the trimmed text because it gets the loop's parse, not the raw JSON.
    expect(tools[1]!.text).toBe('Question for the human: REST or GraphQL?')
  })

  it('refuses an argument the tool does not name, at the top or inside, and runs nothing (issue 35)', async () => {
    const m = await member('Impl', { approval: 'auto' })
    server.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'x', mode: '0777' } },
          { name: 'run_command', arguments: { command: 'touch b.txt', cwd: '/' } },
        ],
      },
      { text: 'ok' },
    )
    const steps = await turn(m, 'go')
    const tools = steps.filter((s) => s.kind === 'tool')
    expect(tools.map((s) => s.status)).toEqual(['error', 'error'])
    expect(tools[0]!.text).toMatch(
      /^error \(invalid_arguments\): Invalid arguments for write_file: mode: not an argument/,
    )
    expect(tools[1]!.text).toMatch(/cwd: not an argument of this tool/)
    expect(existsSync(join(t.repoDir, 'a.txt'))).toBe(false)
    expect(existsSync(join(t.repoDir, 'b.txt'))).toBe(false)
  })

  it('retries a 429 honouring Retry-After, then succeeds', async () => {
    const m = await member('Impl')
    server.enqueue({ status: 429, headers: { 'retry-after': '0' }, errorMessage: 'slow down' }, { text: 'done' })
    const steps = await turn(m, 'hi')
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'done' })
    expect(server.requests).toHaveLength(2)
  })

  it('a bad key puts the member in error with the provider message and keeps its queue', async () => {
    const m = await member('Impl', { provider: { ...openai(), apiKey: 'sk-wrong' } })
    server.enqueue({ status: 401, errorMessage: 'Incorrect API key provided' })
    const failed = waitForEvent<{ session: SessionInfo }>(
      t.core,
      (ev) =>
        ev.event === 'session.state' && ev.payload.session.memberId === m.id && ev.payload.session.state === 'error',
    )
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'first' })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'second' })
    const info = (await failed).payload.session
    expect(info.error).toContain('Incorrect API key provided')
    expect(info.error).not.toContain('sk-wrong')
    const page = await t.core.invoke('sessions.get', { memberId: m.id })
    expect(page.state).toBe('error')
    expect(page.queued).toBe(1)
    // Fixing the key runs the failed message again, then resumes the inbox (settings-fix.test.ts).
    server.enqueue({ text: 'first handled' }, { text: 'second handled' })
    const idle = settled(m.id)
    await t.core.invoke('members.update', { memberId: m.id, provider: openai() })
    await idle
    const after = await t.core.invoke('sessions.get', { memberId: m.id })
    expect(after.steps.filter((s) => s.kind === 'model' && s.status === 'done').map((s) => s.text)).toEqual([
      'first handled',
      'second handled',
    ])
  })

  it("each turn uses the member's provider settings as they are now: model, key, kind", async () => {
    const m = await member('Impl')
    const answered = async (text: string) => {
      server.enqueue({ text })
      await turn(m, text)
      return server.requests.at(-1)!
    }
    const first = await answered('one')
    expect([first.format, first.body.model, first.headers.authorization]).toEqual([
      'openai',
      'gpt-test',
      'Bearer sk-test',
    ])
    // The same settings again: the same answer (the provider is kept between turns).
    expect((await answered('two')).body.model).toBe('gpt-test')
    await t.core.invoke('members.update', { memberId: m.id, provider: { ...openai(), model: 'gpt-other' } })
    expect((await answered('three')).body.model).toBe('gpt-other')
    await t.core.invoke('members.update', { memberId: m.id, provider: { ...openai(), apiKey: 'sk-rotated' } })
    expect((await answered('four')).headers.authorization).toBe('Bearer sk-rotated')
    await t.core.invoke('members.update', { memberId: m.id, provider: anthropic() })
    const last = await answered('five')
    expect([last.format, last.body.model, last.headers.authorization]).toEqual([
      'anthropic',
      'claude-test',
      'Bearer sk-ant-test',
    ])
  })

  it('interrupt stops a streaming reply and records it', async () => {
    const m = await member('Impl')
    server.enqueue({ text: 'I am thinking about this for a very long time', hang: true, chunkSize: 5 })
    const streaming = waitForEvent(t.core, (e) => e.event === 'session.delta')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'think' })
    await streaming
    const idle = settled(m.id)
    await t.core.invoke('sessions.interrupt', { memberId: m.id })
    await idle
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['model', 'interrupted'],
      ['interrupted', 'done'],
    ])
    expect(steps[1]!.text.length).toBeGreaterThan(0)
  })

  it('asks for approval before writing, and honours allow and deny', async () => {
    const m = await member('Impl', { approval: 'ask' })
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/a.txt', content: 'allowed' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/b.txt', content: 'denied' } }] },
      { text: 'done' },
    )
    const waiting = waitForEvent<{ session: SessionInfo }>(
      t.core,
      (e) => e.event === 'session.state' && e.payload.session.state === 'waiting_approval',
    )
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'write notes' })
    const first = (await waiting).payload.session.pendingApprovals[0]
    expect(first!.name).toBe('write_file')
    expect(existsSync(join(t.repoDir, 'notes/a.txt'))).toBe(false)
    const waiting2 = waitForEvent<{ session: SessionInfo }>(
      t.core,
      (e) =>
        e.event === 'session.state' &&
        e.payload.session.state === 'waiting_approval' &&
        e.payload.session.pendingApprovals[0]?.callId !== first!.callId,
    )
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: first!.callId, allow: true })
    const second = (await waiting2).payload.session.pendingApprovals[0]
    const idle = settled(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: second!.callId, allow: false })
    await idle
    expect(readFileSync(join(t.repoDir, 'notes/a.txt'), 'utf8')).toBe('allowed')
    expect(existsSync(join(t.repoDir, 'notes/b.txt'))).toBe(false)
    const tools = (await t.core.invoke('sessions.get', { memberId: m.id })).steps.filter((s) => s.kind === 'tool')
    expect(tools.map((s) => s.status)).toEqual(['done', 'denied'])
    await rejectsWith(
      t.core.invoke('sessions.approve', { memberId: m.id, callId: second!.callId, allow: true }),
      'not_found',
    )
  })

  it('delegates to another member and returns its answer (agent as tool)', async () => {
    const lead = await member('Lead')
    const rev = await member('Rev')
    server.enqueue(
      { toolCalls: [{ name: 'delegate', arguments: { memberId: 'Rev', task: 'Review app.ts' } }] },
      { text: 'Looks good to me.' },
      (req) => ({
        text: `Lead heard: ${toolMessages(req).at(-1)?.content}`,
      }),
    )
    const steps = await turn(lead, 'Get app.ts reviewed')
    expect(steps.at(-1)?.text).toContain('Rev answered:\nLooks good to me.')
    const revSteps = (await t.core.invoke('sessions.get', { memberId: rev.id })).steps
    expect(revSteps.map((s) => s.kind)).toEqual(['message', 'model'])
    expect(revSteps[0]).toMatchObject({ fromMemberId: lead.id, text: 'Review app.ts' })
    const revRequest = server.requests[1]!.body.messages as { role: string; content: string }[]
    expect(revRequest.at(-1)!.content).toContain('[Message from Lead] Review app.ts')
  })

  it('stops at maxSteps and says the work is not finished', async () => {
    const m = await member('Loop', { maxSteps: 2 })
    server.enqueue(
      { toolCalls: [{ name: 'git_status', arguments: {} }] },
      { toolCalls: [{ name: 'git_status', arguments: {} }] },
    )
    const steps = await turn(m, 'loop')
    expect(steps.at(-1)).toMatchObject({ kind: 'error', text: expect.stringContaining('maxSteps') })
    expect(server.requests).toHaveLength(2)
  })

  it('plans every N steps with a view that leaves old plans out', async () => {
    const m = await member('Planner', { planningInterval: 1, maxSteps: 2 })
    server.enqueue(
      { text: 'PLAN-1: look at the files' },
      { toolCalls: [{ name: 'list_files', arguments: {} }] },
      { text: 'PLAN-2: answer' },
      { text: 'done' },
    )
    const steps = await turn(m, 'do it')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'plan', 'model', 'tool', 'plan', 'model'])
    const [plan1, call1, plan2, call2] = server.requests
    expect(plan1!.body.tools).toBeUndefined()
    expect(JSON.stringify(call1!.body.messages)).toContain('PLAN-1')
    expect(JSON.stringify(plan2!.body.messages)).not.toContain('PLAN-1')
    expect(JSON.stringify(call2!.body.messages)).toContain('PLAN-2')
    expect(JSON.stringify(call2!.body.messages)).not.toContain('PLAN-1')
  })

  it('cuts a long tool output in the view and lets the model read the rest with read_tool_output', async () => {
    const m = await member('Impl')
    writeFileSync(
      join(t.repoDir, 'big.txt'),
      Array.from({ length: 2000 }, (_, i) => `line ${i} of the big file`).join('\n'),
    )
    server.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
      (req) => {
        const cut = toolMessages(req)[0]!.content
        const stepId = /stepId "([^"]+)"/.exec(cut)![1]
        return { toolCalls: [{ name: 'read_tool_output', arguments: { stepId, offset: 40_000, limit: 200 } }] }
      },
      { text: 'read it all' },
    )
    const steps = await turn(m, 'read big.txt')
    const whole = steps.find((s) => s.kind === 'tool' && s.tool?.name === 'read_file')!
    expect(whole.text.length).toBeGreaterThan(40_000) // the store keeps it whole
    const inView = toolMessages(server.requests[1]!)[0]!.content
    expect(inView.length).toBeLessThan(5_000)
    expect(inView).toContain('characters cut here')
    const rest = steps.find((s) => s.tool?.name === 'read_tool_output')!
    expect(rest.status).toBe('done')
    expect(rest.text.slice(0, 200)).toBe(whole.text.slice(40_000, 40_200))
  })

  it('message_member queues a message for another member; ask_human ends the turn with the question', async () => {
    const lead = await member('Lead')
    const rev = await member('Rev')
    server.enqueue(
      {
        toolCalls: [
          { name: 'message_member', arguments: { memberId: 'Rev', text: 'Heads up: D-1 may change' } },
          { name: 'ask_human', arguments: { question: 'REST or GraphQL?' } },
        ],
      },
      { text: 'Noted.' },
    )
    const revIdle = settled(rev.id)
    const steps = await turn(lead, 'coordinate')
    await revIdle
    expect(steps.at(-1)?.text).toContain('REST or GraphQL?')
    expect(server.requests.filter((r) => JSON.stringify(r.body).includes('[Message from Lead] Heads up'))).toHaveLength(
      1,
    )
    expect((await t.core.invoke('sessions.get', { memberId: rev.id })).steps.map((s) => s.kind)).toEqual([
      'message',
      'model',
    ])

    // The question stays open on the lead's session (and in the list of sessions) until the human answers.
    const asked = steps.find((s) => s.tool?.name === 'ask_human')!
    const open = { stepId: asked.id, text: 'REST or GraphQL?' }
    expect((await t.core.invoke('sessions.get', { memberId: lead.id })).question).toEqual(open)
    expect(
      (await t.core.invoke('sessions.list', { workspaceId: ws.id })).find((i) => i.memberId === lead.id)?.question,
    ).toEqual(open)
    expect((await t.core.invoke('sessions.get', { memberId: rev.id })).question).toBeNull()
    server.enqueue({ text: 'REST it is.' })
    const states: (SessionInfo['question'] | undefined)[] = []
    const off = t.core.bus.on(
      (e) =>
        e.event === 'session.state' &&
        (e.payload as { session: SessionInfo }).session.memberId === lead.id &&
        states.push((e.payload as { session: SessionInfo }).session.question),
    )
    await turn(lead, 'REST.')
    off()
    expect(states[0]).toBeNull()
    expect((await t.core.invoke('sessions.get', { memberId: lead.id })).question).toBeNull()
  })

  it('refuses a delegation that would wait on itself', async () => {
    const a = await member('Ann')
    await member('Bob')
    server.enqueue(
      { toolCalls: [{ name: 'delegate', arguments: { memberId: 'Bob', task: 'ask Ann' } }] },
      { toolCalls: [{ name: 'delegate', arguments: { memberId: 'Ann', task: 'loop back' } }] },
      (req) => ({ text: `Bob saw: ${toolMessages(req).at(-1)?.content}` }),
      (req) => ({ text: `Ann saw: ${toolMessages(req).at(-1)?.content}` }),
    )
    const steps = await turn(a, 'start')
    expect(steps.at(-1)?.text).toContain('Bob answered')
    expect(steps.at(-1)?.text).toContain('delegation_cycle')
  })

  it('records where an agent proposed a change: the model step that asked for it', async () => {
    const m = await member('Pat', { authority: 'proposer' })
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
    server.enqueue(
      {
        toolCalls: [
          { name: 'propose_decision_change', arguments: { decisionId: 'D-1', statement: 'Use gRPC', reason: 'speed' } },
        ],
      },
      { text: 'proposed' },
    )
    const steps = await turn(m, 'propose gRPC')
    const [proposal] = await t.core.invoke('proposals.list', { workspaceId: ws.id })
    expect(proposal).toMatchObject({
      decisionId: d.id,
      authorId: m.id,
      statement: 'Use gRPC',
      sourceMessageId: steps[1]!.id,
    })
    expect(steps[2]!.tool).toMatchObject({ toolCallId: steps[1]!.toolCalls[0]!.id, name: 'propose_decision_change' })
    expect(steps.some((s) => s.tool?.name === 'update_decision')).toBe(false)
  })
})

describe('sessions API', () => {
  it('pages older steps and refuses bad input', async () => {
    const m = await member('Impl')
    for (let i = 0; i < 3; i++) {
      server.enqueue({ text: `answer ${i}` })
      await turn(m, `question ${i}`)
    }
    const last = await t.core.invoke('sessions.get', { memberId: m.id, limit: 4 })
    expect(last.steps.map((s) => s.text)).toEqual(['question 1', 'answer 1', 'question 2', 'answer 2'])
    expect(last.hasMore).toBe(true)
    const older = await t.core.invoke('sessions.get', { memberId: m.id, before: last.steps[0]!.seq, limit: 4 })
    expect(older.steps.map((s) => s.text)).toEqual(['question 0', 'answer 0'])
    expect(older.hasMore).toBe(false)
    await rejectsWith(t.core.call('sessions.send', { memberId: m.id, text: '   ' }), 'invalid_params')
    await rejectsWith(t.core.call('sessions.send', { memberId: `${ws.id}-m99`, text: 'x' }), 'not_found')
    writeFileSync(join(t.repoDir, 'x'), '')
  })
})
