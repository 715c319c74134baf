/**
 * A member that is the real Codex (through its ACP adapter, @zed-industries/codex-acp 0.16, which embeds Codex),
 * driving the scripted model server's Responses API offline, with Concord's harness tools reaching it through the
 * real `concord mcp`. One member (one Codex process, restarted only where a test kills it) for the whole file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  acpAgent,
  agentPid,
  answered,
  concordCallAskedThenRun,
  conversationText,
  expectTokenOnlyInEnvironment,
  greets,
  interruptedAndResumed,
  reportsThroughMidTurnEdit,
  sessionOf,
  sinceLastMessage,
  stepsOf,
  turnOf,
  turnsOf,
  type AcpAgent,
  type AcpAgentCase,
} from '../fixtures/acp-agent-checks'
import { codexProvider } from '../fixtures/agents'
import { startedTask } from '../fixtures/harness'
import type { ModelServer } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { sessionDelta, sessionWhere } from '../fixtures/sessions'

// The agent runs in the OS sandbox; without one an agent's first turn starts with a 'runs not sandboxed' notice the step lists here do not have.
fileNeedsSandbox()

const provider = (server: ModelServer, turnTimeoutSeconds?: number) => codexProvider(server, { turnTimeoutSeconds })
const codex: AcpAgentCase = {
  name: 'Codex',
  // `ask`: Concord's own tools must still run without a question (Codex is told to approve them).
  provider: (server) => ({ ...provider(server), apiKey: 'sk-any' }),
  approval: 'ask',
  processName: 'codex-acp',
  turns: (r) => r.path === '/v1/responses',
  conversation: (r) => r.body.input as { role?: string }[],
  concordCall: (tool, args) => ({ name: tool, namespace: 'mcp__concord', arguments: args }),
  timeoutMs: 60_000,
}

let a: AcpAgent

beforeAll(async () => {
  a = await acpAgent(codex)
})
afterAll(() => a.t.cleanup())

// Real agents, each start a few seconds (more on a loaded machine); a turn that restarts one starts two.
describe('Codex over ACP', { timeout: 90_000 }, () => {
  it('streams its answer into the session with the brief in the prompt; Codex reports no token counts', async () => {
    const text = 'Hello from Codex, over ACP.'
    const { steps, deltas, request } = await greets(a, { text, usage: { input: 321, output: 9 } })
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe(text)
    // Concord's tools arrive as the namespace mcp__concord.
    expect(JSON.stringify(request.body.tools)).toContain('mcp__concord')
    // Measured (codex-acp 0.16): the prompt's answer carries no usage, only a usage_update of the context window
    // (used / size). So the reply counts as "not reported", never as 0 tokens.
    expect(steps[1]!.usage).toBeNull()
    const metrics = await a.t.core.invoke('metrics.get', { workspaceId: a.ws.id })
    expect(JSON.stringify(metrics)).toMatch(/"unreported":1/)
  })

  it('submits a report through MCP without asking (under ask), and a decision edited mid-turn reaches its next model request', async () => {
    const steps = await reportsThroughMidTurnEdit(a)
    expect(steps[3]).toMatchObject({ status: 'done', tool: { name: 'Tool: concord/submit_report' } })
  })

  it("turns Codex's plan into a plan step", async () => {
    a.server.enqueue(
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
    const steps = sinceLastMessage(await turnOf(a, 'Plan it'))
    expect(steps.find((s) => s.kind === 'plan')).toMatchObject({
      text: '- [in_progress] Write the handlers\n- [pending] Report',
    })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Planned.' })
  })

  it('is interrupted with session/cancel and answers the next message in the same process and session', async () => {
    await interruptedAndResumed(a, 'Take your time')
  })

  it("stops a turn whose model endpoint hangs at the member's turn timeout, says so, and answers the next message", async () => {
    await a.t.core.invoke('members.update', { memberId: a.member.id, provider: provider(a.server, 2) })
    // The endpoint accepts the request and then sends nothing more.
    a.server.enqueue({ hang: true })
    const steps = await turnOf(a, 'Are you there?', 'error')
    expect(steps.at(-1)).toMatchObject({
      kind: 'error',
      text: expect.stringContaining("Codex did not finish within Concord's turn timeout (2 s); it was stopped."),
    })
    await a.t.core.invoke('members.update', { memberId: a.member.id, provider: provider(a.server) })
    a.server.enqueue({ text: 'Here again.' })
    expect((await turnOf(a, 'And now?')).at(-1)).toMatchObject({ kind: 'model', text: 'Here again.' })
  })

  it('puts the member in error when Codex dies mid-turn, keeps the queue, and Restart loads the session in a new process', async () => {
    a.server.enqueue({ text: 'about to', hang: true })
    const streaming = sessionDelta(a.t.core, a.member.id, 60_000)
    await a.t.core.invoke('sessions.send', { memberId: a.member.id, text: 'first' })
    await streaming
    await a.t.core.invoke('sessions.send', { memberId: a.member.id, text: 'second, queued' })
    const failed = sessionOf(a, 'error', 1)
    const pid = agentPid(a)
    process.kill(pid, 'SIGKILL')
    expect((await failed).payload.session.error).toContain('Codex stopped during the turn (killed by SIGKILL)')
    a.server.enqueue({ text: 'Answering the queued one.' })
    const idle = sessionOf(a, 'idle')
    expect((await a.t.core.invoke('sessions.restart', { memberId: a.member.id })).state).not.toBe('error')
    await idle
    const steps = await stepsOf(a)
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Answering the queued one.' })
    expect(agentPid(a)).not.toBe(pid)
    // session/load: the conversation from before the crash is in the restarted agent's model request.
    expect(conversationText(a, turnsOf(a).at(-1)!)).toContain('Say hello')
  })

  it('puts a Concord tool call that needs approval under ask to the human, and runs it once allowed', async () => {
    await concordCallAskedThenRun(a)
    const steps = sinceLastMessage(await stepsOf(a))
    expect(steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['tool', 'done'],
      ['model', 'done'],
    ])
  })

  it('runs a command in its worktree on the first try inside the sandbox (asking once under ask), shows the command and its output, and has no token on its command line', async () => {
    const task = await startedTask(a.t.core, { workspaceId: a.ws.id, title: 'Make a file', assigneeId: a.member.id })
    const tree = join(a.t.dataDir, 'worktrees', a.ws.id, 'T-2')
    a.server.enqueue(
      { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo made > made.txt && pwd' } }] },
      { text: 'Made it.' },
    )
    const asked = sessionWhere(
      a.t.core,
      a.member.id,
      (s) => s.state === 'waiting_approval' || (s.state === 'idle' && s.queued === 0),
      60_000,
    )
    await a.t.core.invoke('sessions.send', { memberId: a.member.id, text: 'Make made.txt', taskId: task.id })
    const waiting = (await asked).payload.session
    // One approval: the command itself, not a retry with an escalation after it failed in a sandbox of Codex's own.
    expect(waiting.state).toBe('waiting_approval')
    expect(waiting.pendingApprovals).toHaveLength(1)
    expectTokenOnlyInEnvironment(a)
    await answered(a, waiting, true)
    expect(readFileSync(join(tree, 'made.txt'), 'utf8')).toBe('made\n')
    const output = conversationText(a, turnsOf(a).at(-1)!)
    expect(output).toContain('Process exited with code 0')
    expect(output).not.toContain('bwrap')
    const tool = sinceLastMessage(await stepsOf(a)).find((s) => s.kind === 'tool')!
    expect(tool).toMatchObject({ status: 'done' })
    expect(JSON.parse(tool.tool!.argumentsText)).toMatchObject({ command: 'echo made > made.txt && pwd', cwd: tree })
    // Its output, not Codex's raw event.
    expect(tool.text).toContain(tree)
    expect(tool.text).not.toContain('call_id')
  })
})
