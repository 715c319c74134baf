/**
 * A member that is the real Codex (through its ACP adapter, @zed-industries/codex-acp 0.16, which embeds Codex),
 * driving the scripted model server's Responses API offline, with Concord's harness tools reaching it through the
 * real `concord mcp`. One member (one Codex process, restarted only where a test kills it) for the whole file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Workspace } from '../../shared/schemas'
import { agentMember, codexProvider } from '../fixtures/agents'
import { editToGraphQL, startedTask } from '../fixtures/harness'
import { childPid } from '../fixtures/processes'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { sessionDelta, sessionState, sessionWhere, takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

// The agent runs in the OS sandbox; without one an agent's first turn starts with a 'runs not sandboxed' notice the step lists here do not have.
fileNeedsSandbox()

let t: Team
let server: ModelServer
let ws: Workspace
let codex: Member

beforeAll(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ;({ server, ws } = t)
  // `ask`: Concord's own tools must still run without a question (Codex is told to approve them).
  codex = await agentMember(t, 'Codex', { ...provider(), apiKey: 'sk-any' }, 'ask')
})
afterAll(() => t.cleanup())

const provider = (turnTimeoutSeconds?: number) => codexProvider(server, { turnTimeoutSeconds })

const state = (s: SessionInfo['state'], queued = 0) => sessionState(t.core, codex.id, s, { queued, timeoutMs: 60_000 })
const turn = (text: string, end: SessionInfo['state'] = 'idle') =>
  takeTurn(t.core, { memberId: codex.id, text }, { end, timeoutMs: 60_000 })
/** The steps since the last message from the human (a notice delivered by `concord mcp` belongs to no turn). */
const sinceLastMessage = <T extends { kind: string }>(steps: T[]) =>
  steps.slice(steps.findLastIndex((s) => s.kind === 'user'))

const responses = () => server.requests.filter((r: RecordedRequest) => r.path === '/v1/responses')
const lastUserText = (r: RecordedRequest) =>
  JSON.stringify((r.body.input as { role?: string }[]).filter((m) => m.role === 'user').at(-1))

/** The pid of the member's agent process. */
const agentPid = () => childPid('codex-acp')

// Real agents, each start a few seconds (more on a loaded machine); a turn that restarts one starts two.
describe('Codex over ACP', { timeout: 90_000 }, () => {
  it('streams its answer into the session with the brief in the prompt; Codex reports no token counts', async () => {
    await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
    server.enqueue({ text: 'Hello from Codex, over ACP.', usage: { input: 321, output: 9 } })
    const deltas: string[] = []
    const off = t.core.bus.on((e) => {
      if (e.event === 'session.delta' && e.payload.memberId === codex.id) deltas.push(e.payload.text)
    })
    const steps = await turn('Say hello')
    off()
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model'])
    expect(steps[1]).toMatchObject({ status: 'done', text: 'Hello from Codex, over ACP.' })
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Hello from Codex, over ACP.')
    const req = responses().at(-1)!
    expect(lastUserText(req)).toContain('# Brief')
    expect(lastUserText(req)).toContain('D-1 v1 [accepted] \\"API\\": Use REST')
    // Concord's tools arrive as the namespace mcp__concord.
    expect(JSON.stringify(req.body.tools)).toContain('mcp__concord')
    // Measured (codex-acp 0.16): the prompt's answer carries no usage, only a usage_update of the context window
    // (used / size). So the reply counts as "not reported", never as 0 tokens.
    expect(steps[1]!.usage).toBeNull()
    const metrics = await t.core.invoke('metrics.get', { workspaceId: ws.id })
    expect(JSON.stringify(metrics)).toMatch(/"unreported":1/)
  })

  it('submits a report through MCP without asking (under ask), and a decision edited mid-turn reaches its next model request', async () => {
    const d = (await t.core.invoke('decisions.list', { workspaceId: ws.id }))[0]
    await startedTask(t.core, { workspaceId: ws.id, title: 'Build API', assigneeId: codex.id, decisionIds: [d!.id] })
    let edited: Promise<unknown> = Promise.resolve()
    server.enqueue(
      () => {
        // The human edits the decision while the agent's model call is in flight.
        edited = editToGraphQL(t.core, d!)
        return { toolCalls: [{ name: 'get_brief', namespace: 'mcp__concord', arguments: {} }] }
      },
      {
        toolCalls: [
          {
            name: 'submit_report',
            namespace: 'mcp__concord',
            arguments: {
              taskId: 'T-1',
              kind: 'implementation',
              verdict: 'pass',
              summary: 'done',
              claims: [{ text: 'endpoints work', decisionIds: ['D-1'] }],
            },
          },
        ],
      },
      { text: 'Reported; the API is GraphQL now.' },
    )
    const steps = sinceLastMessage(await turn('Build the API and report'))
    await edited
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({
      authorId: codex.id,
      basis: [{ decisionId: d!.id, version: 2 }],
      validity: 'valid',
    })
    const second = responses().at(-2)!
    expect(JSON.stringify(second.body.input)).toContain('Notices from Concord')
    expect(JSON.stringify(second.body.input)).toContain('Use GraphQL')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'tool', 'notice', 'tool', 'model'])
    expect(steps[3]).toMatchObject({ status: 'done', tool: { name: 'Tool: concord/submit_report' } })
    expect(await t.core.invoke('notices.list', { memberId: codex.id, pending: true })).toEqual([])
  })

  it("turns Codex's plan into a plan step", async () => {
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'update_plan',
            arguments: {
              plan: [
                { step: 'Write the handlers', status: 'in_progress' },
                { step: 'Report', status: 'pending' },
              ],
            },
          },
        ],
      },
      { text: 'Planned.' },
    )
    const steps = sinceLastMessage(await turn('Plan it'))
    expect(steps.find((s) => s.kind === 'plan')).toMatchObject({
      text: '- [in_progress] Write the handlers\n- [pending] Report',
    })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Planned.' })
  })

  it('is interrupted with session/cancel and answers the next message in the same process and session', async () => {
    server.enqueue({ text: 'Working on it, slowly', hang: true })
    const streaming = sessionDelta(t.core, codex.id, 60_000)
    await t.core.invoke('sessions.send', { memberId: codex.id, text: 'Take your time' })
    await streaming
    const pid = agentPid()
    const idle = state('idle')
    await t.core.invoke('sessions.interrupt', { memberId: codex.id })
    await idle
    expect((await t.core.invoke('sessions.get', { memberId: codex.id })).steps.at(-1)).toMatchObject({
      kind: 'interrupted',
    })
    server.enqueue({ text: 'Back again.' })
    const steps = await turn('Still there?')
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Back again.' })
    expect(agentPid()).toBe(pid)
    expect(JSON.stringify(responses().at(-1)!.body.input)).toContain('Take your time')
  })

  it("stops a turn whose model endpoint hangs at the member's turn timeout, says so, and answers the next message", async () => {
    await t.core.invoke('members.update', { memberId: codex.id, provider: provider(2) })
    // The endpoint accepts the request and then sends nothing more.
    server.enqueue({ hang: true })
    const steps = await turn('Are you there?', 'error')
    expect(steps.at(-1)).toMatchObject({
      kind: 'error',
      text: expect.stringContaining("Codex did not finish within Concord's turn timeout (2 s); it was stopped."),
    })
    await t.core.invoke('members.update', { memberId: codex.id, provider: provider() })
    server.enqueue({ text: 'Here again.' })
    expect((await turn('And now?')).at(-1)).toMatchObject({ kind: 'model', text: 'Here again.' })
  })

  it('puts the member in error when Codex dies mid-turn, keeps the queue, and Restart loads the session in a new process', async () => {
    server.enqueue({ text: 'about to', hang: true })
    const streaming = sessionDelta(t.core, codex.id, 60_000)
    await t.core.invoke('sessions.send', { memberId: codex.id, text: 'first' })
    await streaming
    await t.core.invoke('sessions.send', { memberId: codex.id, text: 'second, queued' })
    const failed = state('error', 1)
    const pid = agentPid()
    process.kill(pid, 'SIGKILL')
    expect((await failed).payload.session.error).toContain('Codex stopped during the turn (killed by SIGKILL)')
    server.enqueue({ text: 'Answering the queued one.' })
    const idle = state('idle')
    expect((await t.core.invoke('sessions.restart', { memberId: codex.id })).state).not.toBe('error')
    await idle
    const steps = (await t.core.invoke('sessions.get', { memberId: codex.id })).steps
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Answering the queued one.' })
    expect(agentPid()).not.toBe(pid)
    // session/load: the conversation from before the crash is in the restarted agent's model request.
    expect(JSON.stringify(responses().at(-1)!.body.input)).toContain('Say hello')
  })

  it('puts a Concord tool call that needs approval under ask to the human, and runs it once allowed', async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: 'update_task_status', namespace: 'mcp__concord', arguments: { taskId: 'T-1', status: 'cancelled' } },
        ],
      },
      { text: 'Cancelled T-1.' },
    )
    await t.core.invoke('sessions.send', { memberId: codex.id, text: 'Cancel T-1' })
    const waiting = (await state('waiting_approval')).payload.session
    expect(waiting.pendingApprovals).toMatchObject([{ name: 'update_task_status' }])
    expect((await t.core.invoke('tasks.list', { workspaceId: ws.id }))[0]!.status).toBe('in_progress')
    const idle = state('idle')
    await t.core.invoke('sessions.approve', {
      memberId: codex.id,
      callId: waiting.pendingApprovals[0]!.callId,
      allow: true,
    })
    await idle
    expect((await t.core.invoke('tasks.list', { workspaceId: ws.id }))[0]!.status).toBe('cancelled')
    const steps = sinceLastMessage((await t.core.invoke('sessions.get', { memberId: codex.id })).steps)
    expect(steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['tool', 'done'],
      ['model', 'done'],
    ])
  })

  it('runs a command in its worktree on the first try inside the sandbox (asking once under ask), shows the command and its output, and has no token on its command line', async () => {
    const task = await startedTask(t.core, { workspaceId: ws.id, title: 'Make a file', assigneeId: codex.id })
    const tree = join(t.dataDir, 'worktrees', ws.id, 'T-2')
    server.enqueue(
      { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo made > made.txt && pwd' } }] },
      { text: 'Made it.' },
    )
    const asked = sessionWhere(
      t.core,
      codex.id,
      (s) => s.state === 'waiting_approval' || (s.state === 'idle' && s.queued === 0),
      60_000,
    )
    await t.core.invoke('sessions.send', { memberId: codex.id, text: 'Make made.txt', taskId: task.id })
    const waiting = (await asked).payload.session
    // One approval: the command itself, not a retry with an escalation after it failed in a sandbox of Codex's own.
    expect(waiting.state).toBe('waiting_approval')
    expect(waiting.pendingApprovals).toHaveLength(1)
    // The gateway's token reaches Concord's MCP entry through Codex's environment, not its command line (`ps`).
    const pid = agentPid()
    const token = /(?:^|\0)CONCORD_MCP_TOKEN=([^\0]+)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1]
    expect(token).toBeTruthy()
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(token)
    const idle = state('idle')
    await t.core.invoke('sessions.approve', {
      memberId: codex.id,
      callId: waiting.pendingApprovals[0]!.callId,
      allow: true,
    })
    await idle
    expect(readFileSync(join(tree, 'made.txt'), 'utf8')).toBe('made\n')
    const output = JSON.stringify(responses().at(-1)!.body.input)
    expect(output).toContain('Process exited with code 0')
    expect(output).not.toContain('bwrap')
    const tool = sinceLastMessage((await t.core.invoke('sessions.get', { memberId: codex.id })).steps).find(
      (s) => s.kind === 'tool',
    )!
    expect(tool).toMatchObject({ status: 'done' })
    expect(JSON.parse(tool.tool!.argumentsText)).toMatchObject({ command: 'echo made > made.txt && pwd', cwd: tree })
    // Its output, not Codex's raw event.
    expect(tool.text).toContain(tree)
    expect(tool.text).not.toContain('call_id')
  })
})
