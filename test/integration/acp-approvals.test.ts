/**
 * Permission requests of a real ACP agent (Claude Code through claude-agent-acp, on the scripted model server) go
 * through the same approval decision as Concord's own loop (harness/members/approval-policy.ts): under `sandboxed` an edit in
 * its tree runs without asking and a command asks (an agent's process has the network), a rule lets it run, and a
 * Deny answers that one call, its reason reaching the agent in Concord's next prompt.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { agentMember, claudeProvider, codexProvider } from '../fixtures/agents'
import { startedTask } from '../fixtures/harness'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { approvalsAsked, sessionState, sessionWhere } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

// Without the OS sandbox `sandboxed` asks for everything (approval-policy.test.ts covers that): these need it.
fileNeedsSandbox()

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const claude = (approval?: Member['approval']): Promise<Member> =>
  agentMember(t, 'Claude', claudeProvider(server), approval)

const waitingOf = (memberId: string) => sessionWhere(t.core, memberId, (s) => s.state === 'waiting_approval', 90_000)
const idleOf = (memberId: string) => sessionState(t.core, memberId, 'idle', { timeoutMs: 90_000 })
const worktree = (key: string) => join(t.dataDir, 'worktrees', ws.id, key)
const withTools = (r: RecordedRequest) => Array.isArray(r.body?.tools) && r.body.tools.length > 0

const taskFor = (m: Member) => startedTask(t.core, { workspaceId: ws.id, title: 'Work', assigneeId: m.id })

describe('ACP permission requests under the approval policy', () => {
  it('sandboxed (the default): an edit in its tree runs without asking; a command asks, says why, and a rule lets the next one run', async () => {
    const m = await claude()
    expect(m.approval).toBe('sandboxed')
    await taskFor(m)
    const asked = approvalsAsked(t.core, m.id)
    const target = join(worktree('T-1'), 'hello.txt')
    server.enqueue(
      { toolCalls: [{ name: 'Write', arguments: { file_path: target, content: 'hi\n' } }] },
      { text: 'Wrote it.' },
    )
    let idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Write hello.txt' })
    await idle
    expect(readFileSync(target, 'utf8')).toBe('hi\n')
    expect(asked()).toBe(0)

    server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: 'echo from-bash > bash.txt', description: 'write bash.txt' } },
        ],
      },
      { text: 'Ran it.' },
    )
    const waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Run it' })
    const card = (await waiting).payload.session.pendingApprovals[0]
    expect(card!.why).toBe('it leaves the sandbox: this command runs with the network on')
    // The card shows the command as a built-in member's would, not the agent's raw input.
    expect(JSON.parse(card!.argumentsText)).toEqual({ command: 'echo from-bash > bash.txt' })
    idle = idleOf(m.id)
    await t.core.invoke('sessions.allowAlways', {
      memberId: m.id,
      callId: card!.callId,
      scope: 'team',
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'echo' },
    })
    await idle
    expect(existsSync(join(worktree('T-1'), 'bash.txt'))).toBe(true)

    // `echo again` is covered by the team's rule now: no question.
    server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'echo again', description: 'echo' } }] },
      { text: 'Again.' },
    )
    idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Once more' })
    await idle
    expect(asked()).toBe(1)
  }, 180_000)

  it('a Deny answers that one call, and its reason reaches Claude in Concord next prompt', async () => {
    const m = await claude('ask')
    await taskFor(m)
    const target = join(worktree('T-1'), 'nope.txt')
    server.enqueue(
      { toolCalls: [{ name: 'Write', arguments: { file_path: target, content: 'no\n' } }] },
      { text: 'Could not write it.' },
      { text: 'Understood: no file.' },
    )
    const waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Write nope.txt' })
    const card = (await waiting).payload.session.pendingApprovals[0]
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', {
      memberId: m.id,
      callId: card!.callId,
      allow: false,
      reason: 'keep the notes in README instead',
    })
    await idle
    expect(existsSync(target)).toBe(false)
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.find((s) => s.kind === 'tool' && s.status === 'denied')?.text).toBe(
      'Denied by the human: keep the notes in README instead',
    )
    // Not an interruption by the human: the turn ended, and Concord's next prompt told Claude why.
    expect(steps.filter((s) => s.kind === 'interrupted')).toEqual([])
    const prompts = server.requests.filter(withTools).map((r) => JSON.stringify(r.body.messages))
    expect(
      prompts.some(
        (p) =>
          p.includes('The human denied a call of your last turn') && p.includes('keep the notes in README instead'),
      ),
    ).toBe(true)
  }, 180_000)
})

describe('a Deny of a Codex command', () => {
  it('answers that one call: the turn is not recorded as interrupted by the human, and Codex hears the reason next', async () => {
    const m = await agentMember(t, 'Codex', { ...codexProvider(server), apiKey: 'sk-any' }, 'ask')
    await taskFor(m)
    server.enqueue(
      { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo no > denied.txt' } }] },
      { text: 'Not run.' },
      { text: 'Understood, no file.' },
    )
    const waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Make denied.txt' })
    const card = (await waiting).payload.session.pendingApprovals[0]
    // Codex's request is its exec event (`bash -lc …` and its bookkeeping): the card shows the command line.
    expect(JSON.parse(card!.argumentsText)).toMatchObject({ command: 'echo no > denied.txt' })
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', {
      memberId: m.id,
      callId: card!.callId,
      allow: false,
      reason: 'write it with the editor instead',
    })
    await idle
    expect(existsSync(join(worktree('T-1'), 'denied.txt'))).toBe(false)
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.filter((s) => s.kind === 'interrupted').map((s) => s.text)).toEqual([])
    expect(steps.find((s) => s.kind === 'tool' && s.status === 'denied')?.text).toBe(
      'Denied by the human: write it with the editor instead',
    )
    const inputs = server.requests.filter((r) => r.path === '/v1/responses').map((r) => JSON.stringify(r.body.input))
    expect(inputs.some((i) => i.includes('write it with the editor instead'))).toBe(true)
  }, 180_000)
})
