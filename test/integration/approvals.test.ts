import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionInfo, Workspace } from '../../shared/schemas'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { needsSandbox } from '../fixtures/sandbox-gate'
import { approvalsAsked, sessionWhere } from '../fixtures/sessions'
import { scriptedOpenAI, workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam()
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const toolMessages = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool')

async function deny(reason?: string) {
  const m = await t.member('Impl', { role: 'implementer', approval: 'ask' })
  server.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'no' } }] },
    { text: 'understood' },
  )
  const waiting = waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) => e.event === 'session.state' && e.payload.session.state === 'waiting_approval',
  )
  await t.core.invoke('sessions.send', { memberId: m.id, text: 'write b' })
  const call = (await waiting).payload.session.pendingApprovals[0]
  const idle = waitForEvent<{ session: SessionInfo }>(
    t.core,
    (e) => e.event === 'session.state' && e.payload.session.state === 'idle',
  )
  await t.core.invoke('sessions.approve', {
    memberId: m.id,
    callId: call!.callId,
    allow: false,
    ...(reason === undefined ? {} : { reason }),
  })
  await idle
  const [, second] = await server.waitForRequests(2)
  return { second: second, steps: (await t.core.invoke('sessions.get', { memberId: m.id })).steps }
}

describe('denying an approval', () => {
  it('with a reason: the agent receives it in the tool result and the step keeps it', async () => {
    const { second, steps } = await deny('use the existing notes file instead')
    expect(toolMessages(second!).at(-1)?.content).toBe(
      'Denied by the human: use the existing notes file instead (Do not retry it unchanged.)',
    )
    expect(steps.find((s) => s.kind === 'tool')).toMatchObject({
      status: 'denied',
      text: expect.stringContaining('use the existing notes file instead'),
    })
    expect(existsSync(join(t.repoDir, 'b.txt'))).toBe(false)
  })

  it('without one: the agent is told the human denied it', async () => {
    const { second } = await deny()
    expect(toolMessages(second!).at(-1)?.content).toBe('The human denied this call. (Do not retry it unchanged.)')
  })
})

// ── approvals only where they matter (issue 19): the policy, rules, and answering calls one by one ─────────────────
const provider = () => scriptedOpenAI(server)
const stateEvent = (memberId: string, pred: (s: SessionInfo) => boolean) => sessionWhere(t.core, memberId, pred)
/** The end of the turn that is about to start (an idle state goes out before a new member's first turn starts). */
const idleOf = (memberId: string) => {
  let started = false
  return stateEvent(memberId, (s) => {
    if (s.state !== 'idle') started = true
    return started && s.state === 'idle'
  })
}
const waitingOf = (memberId: string) => stateEvent(memberId, (s) => s.state === 'waiting_approval')

describe('the sandboxed policy (the default where the OS sandbox works)', () => {
  beforeEach(needsSandbox)
  it('a new member is sandboxed: writes, commits and commands in its tree run without asking; leaving the tree asks', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tess',
      role: 'tester',
      provider: provider(),
    })
    expect(m.approval).toBe('sandboxed')
    const asked = approvalsAsked(t.core, m.id)
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'in.txt', content: 'inside\n' } }] },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'cat in.txt > copy.txt' } }] },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'inside the tree' } }] },
      { text: 'done inside' },
    )
    let idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'work inside' })
    await idle
    expect(asked()).toBe(0)
    expect(existsSync(join(t.repoDir, 'copy.txt'))).toBe(true)

    // A write outside the tree asks, and says why; denied, nothing is written.
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: '../escape.txt', content: 'out' } }] },
      { text: 'ok' },
    )
    const waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'write outside' })
    const card = (await waiting).payload.session.pendingApprovals[0]
    expect(card).toMatchObject({ name: 'write_file', why: expect.stringContaining("outside the task's tree") })
    idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: card!.callId, allow: false })
    await idle
    expect(existsSync(join(t.repoDir, '..', 'escape.txt'))).toBe(false)
    expect(asked()).toBe(1)
  })

  it('with its network on, a command asks (it would leave the sandbox); "Always allow" makes a rule that lets the next one run', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Net',
      role: 'tester',
      provider: provider(),
      approval: 'sandboxed',
      network: true,
    })
    server.enqueue({ toolCalls: [{ name: 'run_command', arguments: { command: 'echo one' } }] }, { text: 'ok' })
    const waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'run' })
    const card = (await waiting).payload.session.pendingApprovals[0]
    expect(card).toMatchObject({
      why: 'it leaves the sandbox: this command runs with the network on',
      suggestion: { tool: 'run_command', commandPrefix: 'echo one' },
    })
    let idle = idleOf(m.id)
    const { rule } = await t.core.invoke('sessions.allowAlways', {
      memberId: m.id,
      callId: card!.callId,
      scope: 'member',
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'echo' },
    })
    await idle
    expect(rule).toMatchObject({ memberId: m.id, effect: 'allow', tool: 'run_command', commandPrefix: 'echo' })
    expect(await t.core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: m.id })).toEqual([rule])

    // The rule covers `echo two`, not a chain that starts with echo.
    const asked = approvalsAsked(t.core, m.id)
    server.enqueue({ toolCalls: [{ name: 'run_command', arguments: { command: 'echo two' } }] }, { text: 'ok' })
    idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'again' })
    await idle
    expect(asked()).toBe(0)
    server.enqueue({ toolCalls: [{ name: 'run_command', arguments: { command: 'echo three; id' } }] }, { text: 'ok' })
    const chained = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'chain' })
    const second = (await chained).payload.session.pendingApprovals[0]
    idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: second!.callId, allow: false })
    await idle

    // Removed, the rule no longer applies.
    expect(await t.core.invoke('approvalRules.remove', { ruleId: rule.id })).toEqual({ removed: true })
    expect(await t.core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: m.id })).toEqual([])
    await rejectsWith(t.core.invoke('approvalRules.remove', { ruleId: rule.id }), 'not_found')
  })
})

describe('approval rules', () => {
  it('a team deny rule refuses the call without asking, under auto too, and the agent is told which rule', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Auto',
      role: 'implementer',
      provider: provider(),
      approval: 'auto',
    })
    await t.core.invoke('approvalRules.add', {
      workspaceId: ws.id,
      memberId: null,
      rule: { effect: 'deny', commandPrefix: 'touch' },
    })
    server.enqueue(
      { toolCalls: [{ name: 'run_command', arguments: { command: 'echo hi && touch pwned' } }] },
      { text: 'ok' },
    )
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'go' })
    await idle
    const [, second] = await server.waitForRequests(2)
    expect(toolMessages(second!).at(-1)?.content).toBe(
      'error (denied_by_rule): this call was refused by the rule "deny `touch …`" (for the team); it did not run. Do not retry it unchanged.',
    )
    expect(existsSync(join(t.repoDir, 'pwned'))).toBe(false)
  })

  it('are validated: a rule names something, ids are checked', async () => {
    await rejectsWith(
      t.core.invoke('approvalRules.add', { workspaceId: ws.id, memberId: null, rule: { effect: 'allow' } }),
      'invalid_params',
    )
    await rejectsWith(
      t.core.invoke('approvalRules.add', {
        workspaceId: ws.id,
        memberId: null,
        rule: { effect: 'allow', tool: 'rm -rf' },
      }),
      'invalid_params',
    )
    await rejectsWith(
      t.core.invoke('approvalRules.add', {
        workspaceId: ws.id,
        memberId: `${ws.id}-m99`,
        rule: { effect: 'allow', tool: 'x' },
      }),
      'not_found',
    )
    const a = await t.core.invoke('approvalRules.add', {
      workspaceId: ws.id,
      memberId: null,
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'npm  test' },
    })
    const b = await t.core.invoke('approvalRules.add', {
      workspaceId: ws.id,
      memberId: null,
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'npm test' },
    })
    expect(b.id).toBe(a.id)
  })
})

describe('"Always allow" on a command run through a shell (issue 32)', () => {
  it('offers the command inside, never the shell; a command it cannot take apart gets no rule', async () => {
    const m = await t.member('Codex', { role: 'implementer', approval: 'ask' })
    const run = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] })
    server.enqueue(run('bash -lc "echo hi && id"'), { text: 'ok' })
    let waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'chain' })
    const chain = (await waiting).payload.session.pendingApprovals[0]!
    expect(chain.suggestion).toEqual({
      tool: 'run_command',
      noRule: expect.stringContaining('cannot take this command apart'),
    })
    // Never the whole tool: no rule is made, and the call still waits.
    await rejectsWith(
      t.core.invoke('sessions.allowAlways', { memberId: m.id, callId: chain.callId, scope: 'member' }),
      'invalid_params',
    )
    expect(await t.core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: m.id })).toEqual([])
    let idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: chain.callId, allow: false })
    await idle

    server.enqueue(run('bash -lc "echo hi"'), { text: 'ok' })
    waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'echo' })
    const card = (await waiting).payload.session.pendingApprovals[0]!
    expect(card.suggestion).toEqual({ tool: 'run_command', commandPrefix: 'echo hi' })
    idle = idleOf(m.id)
    const { rule } = await t.core.invoke('sessions.allowAlways', {
      memberId: m.id,
      callId: card.callId,
      scope: 'member',
    })
    await idle
    expect(rule).toMatchObject({ tool: 'run_command', commandPrefix: 'echo hi' })

    // The rule covers `echo hi` inside a shell; not the shell running something else.
    const asked = approvalsAsked(t.core, m.id)
    server.enqueue(run("bash -lc 'echo hi there'"), { text: 'ok' })
    idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'again' })
    await idle
    expect(asked()).toBe(0)
    server.enqueue(run('bash -lc "touch laundered"'), { text: 'ok' })
    waiting = waitingOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'other' })
    const other = (await waiting).payload.session.pendingApprovals[0]!
    idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: other.callId, allow: false })
    await idle
    expect(asked()).toBe(1)
  })
})

describe('several calls waiting at once', () => {
  it('answering one takes it off the waiting list at once (an event says so), and the other is still answerable', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Two',
      role: 'implementer',
      provider: provider(),
      approval: 'ask',
    })
    server.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'one.txt', content: '1' } },
          { name: 'write_file', arguments: { path: 'two.txt', content: '2' } },
        ],
      },
      { text: 'both' },
    )
    const both = stateEvent(m.id, (s) => s.pendingApprovals.length === 2)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'write two files' })
    const [first, second] = (await both).payload.session.pendingApprovals
    const one = stateEvent(m.id, (s) => s.pendingApprovals.length === 1)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: first!.callId, allow: true })
    expect((await one).payload.session.pendingApprovals.map((a) => a.callId)).toEqual([second!.callId])
    await rejectsWith(
      t.core.invoke('sessions.approve', { memberId: m.id, callId: first!.callId, allow: true }),
      'not_found',
    )
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: second!.callId, allow: true })
    await idle
    expect(existsSync(join(t.repoDir, 'one.txt')) && existsSync(join(t.repoDir, 'two.txt'))).toBe(true)
  })
})

describe('approval rules in the JSON export', () => {
  it('go out with the workspace and come back on import (member rules on their member, team rules on the team)', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tess',
      role: 'tester',
      provider: provider(),
      approval: 'ask',
    })
    const own = await t.core.invoke('approvalRules.add', {
      workspaceId: ws.id,
      memberId: m.id,
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'npm test' },
    })
    const team = await t.core.invoke('approvalRules.add', {
      workspaceId: ws.id,
      memberId: null,
      rule: { effect: 'deny', pathGlob: '**/*.pem' },
    })
    const out = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json' })
    const doc = JSON.parse(readFileSync(out.files[0]!, 'utf8')) as {
      approvalRules: unknown[]
      members: { id: string; approval: string }[]
    }
    expect(doc.approvalRules).toEqual([
      {
        id: 'A-1',
        memberId: doc.members[0]!.id,
        effect: 'allow',
        tool: 'run_command',
        commandPrefix: 'npm test',
        pathGlob: null,
        createdAt: own.createdAt,
      },
      {
        id: 'A-2',
        memberId: null,
        effect: 'deny',
        tool: null,
        commandPrefix: null,
        pathGlob: '**/*.pem',
        createdAt: team.createdAt,
      },
    ])
    const repo2 = join(t.repoDir, '..', 'restored')
    mkdirSync(repo2)
    const imported = await t.core.invoke('import.workspace', { path: out.files[0]!, repoPath: repo2 })
    const [tess] = await t.core.invoke('members.list', { workspaceId: imported.id })
    const rules = await t.core.invoke('approvalRules.list', { workspaceId: imported.id, memberId: tess!.id })
    expect(rules.map((r) => [r.memberId, r.effect, r.tool, r.commandPrefix, r.pathGlob])).toEqual([
      [tess!.id, 'allow', 'run_command', 'npm test', null],
      [null, 'deny', null, null, '**/*.pem'],
    ])
    // Exported again, the same rules.
    const again = await t.core.invoke('export.decisionLog', { workspaceId: imported.id, format: 'json' })
    expect((JSON.parse(readFileSync(again.files[0]!, 'utf8')) as { approvalRules: unknown }).approvalRules).toEqual(
      doc.approvalRules,
    )
  })
})
