/**
 * A member that is the real Claude Code (through its ACP adapter, @zed-industries/claude-agent-acp), driving the
 * scripted model server offline, with Concord's harness tools reaching it through the real `concord mcp`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, SessionInfo, Workspace } from '../../shared/schemas'
import { createCore } from '../../electron/main/core'
import { parseId } from '../../electron/main/harness/ids'
import { claudeMemberEnv, claudeProvider } from '../fixtures/agents'
import { makeCore, waitForEvent, type TestCore } from '../fixtures/core'
import { apiTask, editToGraphQL, startedTask } from '../fixtures/harness'
import { childPid } from '../fixtures/processes'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox, needsSandbox } from '../fixtures/sandbox-gate'
import { sessionDelta, sessionState, sessionWhere, takeTurn } from '../fixtures/sessions'

// The agent runs in the OS sandbox; without one an agent's first turn starts with a 'runs not sandboxed' notice the step lists here do not have.
fileNeedsSandbox()

let t: TestCore
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  server = await startModelServer()
  t = makeCore({ git: true })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

function claude(approval: 'ask' | 'auto' = 'auto', extra: Record<string, unknown> = {}): Promise<Member> {
  return t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Claude',
    role: 'implementer',
    authority: 'proposer',
    approval,
    provider: claudeProvider(server, extra),
  })
}

const state = (memberId: string, s: SessionInfo['state'], queued = 0) =>
  sessionState(t.core, memberId, s, { queued, timeoutMs: 60_000 })
const turn = (m: Member, text: string, end: SessionInfo['state'] = 'idle') =>
  takeTurn(t.core, { memberId: m.id, text }, { end, timeoutMs: 60_000 })

/** Resolves once the member's step with this text is done (the answer to a prompt Concord sent it). */
const stepDone = (m: Member, text: string) =>
  waitForEvent(
    t.core,
    (e) =>
      e.event === 'session.step' &&
      e.payload.memberId === m.id &&
      e.payload.step.text === text &&
      e.payload.step.status === 'done',
    60_000,
  )

/** Claude's own requests to the model carry its tool list; side requests (titles, counts) do not matter here. */
const withTools = (r: RecordedRequest) => Array.isArray(r.body?.tools) && r.body.tools.length > 0
const lastUserText = (r: RecordedRequest) =>
  JSON.stringify((r.body.messages as { role: string }[]).filter((m) => m.role === 'user').at(-1))

/** The folder Concord keeps a task's worktree in. */
const worktree = (key: string) => join(t.dataDir, 'worktrees', ws.id, key)

const taskFor = (m: Member) => startedTask(t.core, { workspaceId: ws.id, title: 'Work', assigneeId: m.id })

/** The pid of the member's agent process. */
const agentPid = () => childPid('claude-agent-acp')

/** Command lines of the processes running now. */
function commandLines(): string[] {
  const out: string[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      out.push(readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' '))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/** The live (not zombie) processes of a process group. */
function groupMembers(pgid: number): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(d))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/** Resolves once the condition holds (checked at each turn of the event loop, with a deadline). */
async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Steps left waiting for the human: a turn ends idle or waits; either is the answer (no 60 s timeout when it asks). */
const settled = (memberId: string) =>
  sessionWhere(
    t.core,
    memberId,
    (s) => s.queued === 0 && (s.state === 'idle' || s.state === 'waiting_approval'),
    60_000,
  )

// Real agents, each start a few seconds (more on a loaded machine); a turn that restarts one starts two.
describe('Claude Code over ACP', { timeout: 90_000 }, () => {
  it('streams its answer into the session with the brief in the prompt, and records its usage', async () => {
    const m = await claude()
    await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
    server.enqueue({ text: 'Hello from Claude Code, over ACP.', usage: { input: 321, output: 9 } })
    const deltas: string[] = []
    t.core.bus.on((e) => {
      if (e.event === 'session.delta' && e.payload.memberId === m.id) deltas.push(e.payload.text)
    })
    const steps = await turn(m, 'Say hello')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model'])
    expect(steps[1]).toMatchObject({
      status: 'done',
      text: 'Hello from Claude Code, over ACP.',
      usage: { input: 321, output: 9 },
    })
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Hello from Claude Code, over ACP.')
    const req = server.requests.find(withTools)!
    expect(lastUserText(req)).toContain('# Brief')
    expect(lastUserText(req)).toContain('D-1 v1 [accepted] \\"API\\": Use REST')
    expect(req.body.tools.map((x: { name: string }) => x.name)).toContain('mcp__concord__submit_report')
  })

  it('submits a report through MCP, and a decision edited mid-turn reaches its next model request', async () => {
    const m = await claude()
    const { d } = await apiTask(t.core, ws.id, m)
    server.enqueue(
      () => {
        // The human edits the decision while the agent's first model call is in flight.
        void editToGraphQL(t.core, d)
        return {
          toolCalls: [
            {
              name: 'mcp__concord__submit_report',
              arguments: {
                taskId: 'T-1',
                kind: 'implementation',
                verdict: 'pass',
                summary: 'done',
                claims: [{ text: 'endpoints work', decisionIds: ['D-1'] }],
              },
            },
          ],
        }
      },
      { text: 'Reported; I see the API is GraphQL now.' },
    )
    const steps = await turn(m, 'Build the API and report')
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ authorId: m.id, basis: [{ decisionId: d.id, version: 2 }], validity: 'valid' })
    const second = server.requests.filter(withTools)[1]
    expect(JSON.stringify(second!.body.messages)).toContain('Notices from Concord')
    expect(JSON.stringify(second!.body.messages)).toContain('Use GraphQL')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'tool', 'notice', 'model'])
    expect(steps[1]).toMatchObject({ status: 'done' })
    expect(await t.core.invoke('notices.list', { memberId: m.id, pending: true })).toEqual([])
  })

  it('sends a notice that came mid-turn as its next prompt when it made no Concord tool call', async () => {
    const m = await claude()
    const { d } = await apiTask(t.core, ws.id, m)
    let edited: Promise<unknown> = Promise.resolve()
    server.enqueue(
      () => {
        edited = editToGraphQL(t.core, d)
        return { text: 'Building it with REST.' }
      },
      { text: 'Switching to GraphQL.' },
    )
    // The turn Concord starts for the notice ends idle too: wait for its reply.
    const replied = stepDone(m, 'Switching to GraphQL.')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Build the API' })
    await replied
    await edited
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['model', 'done'],
      ['notice', 'done'],
      ['notice', 'done'],
      ['model', 'done'],
    ])
    expect(steps[3]!.text).toContain('Use GraphQL')
    const second = lastUserText(server.requests.filter(withTools).at(-1)!)
    expect(second).toContain('## From Concord')
    expect(second).toContain('Use GraphQL')
    expect(await t.core.invoke('notices.list', { memberId: m.id, pending: true })).toEqual([])
  })

  it('with "interrupt and re-prompt", a task flagged needs_adjustment cancels the running turn and sends the notice at once', async () => {
    const m = await claude('auto', { interruptOnAdjustment: true })
    expect(m.provider).toMatchObject({ interruptOnAdjustment: true, turnTimeoutSeconds: 600 })
    const { d } = await apiTask(t.core, ws.id, m)
    server.enqueue({ text: 'Building it with REST, slowly', hang: true }, { text: 'Adjusted to GraphQL.' })
    const streaming = sessionDelta(t.core, m.id, 60_000)
    const replied = stepDone(m, 'Adjusted to GraphQL.')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Build the API' })
    await streaming
    await editToGraphQL(t.core, d)
    await replied
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'interrupted', 'notice', 'notice', 'model'])
    expect(steps[2]!.text).toContain('interrupted by Concord: a task it works on needs adjustment')
    expect(lastUserText(server.requests.filter(withTools).at(-1)!)).toContain('Use GraphQL')
  })

  it('waits for the human on a permission request and goes ahead once it is allowed through the API', async () => {
    const m = await claude('ask')
    // A member with a task works in the task's worktree (without one its checkout is read-only).
    await taskFor(m)
    const target = join(worktree('T-1'), 'hello.txt')
    server.enqueue(
      { toolCalls: [{ name: 'Write', arguments: { file_path: target, content: 'hi\n' } }] },
      { text: 'Wrote hello.txt.' },
    )
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Write hello.txt' })
    const waiting = (await state(m.id, 'waiting_approval')).payload.session
    expect(waiting.pendingApprovals).toHaveLength(1)
    expect(existsSync(target)).toBe(false)
    const idle = state(m.id, 'idle')
    await t.core.invoke('sessions.approve', {
      memberId: m.id,
      callId: waiting.pendingApprovals[0]!.callId,
      allow: true,
    })
    await idle
    expect(readFileSync(target, 'utf8')).toBe('hi\n')
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Wrote hello.txt.' })
  })

  it("runs in the OS sandbox: it writes in its worktree, but not outside it, in the data folder or in another member's home", async (ctx) => {
    await needsSandbox(ctx)
    // A data folder outside /tmp (which the sandbox replaces with its own anyway), to see it hidden.
    const dataDir = mkdtempSync(join('/var/tmp', 'concord-sandbox-'))
    await t.cleanup()
    const inner = makeCore({ git: true, dataDir })
    t = {
      ...inner,
      dataDir,
      cleanup: () => inner.cleanup().finally(() => rmSync(dataDir, { recursive: true, force: true })),
    }
    ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
    const m = await claude()
    const other = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Other',
      role: 'reviewer',
      approval: 'auto',
      provider: { kind: 'acp', agent: 'claude-code', env: claudeMemberEnv(server), isolatedHome: true },
    })
    await taskFor(m)
    const inside = join(worktree('T-1'), 'inside.txt')
    const seen = join(worktree('T-1'), 'seen.txt')
    const tag = `${process.pid}-${Date.now()}`
    const escapes = [
      join(homedir(), `concord-escape-${tag}.txt`),
      join(t.dataDir, 'escape.txt'),
      join(t.repoDir, 'escape.txt'),
      join(t.dataDir, 'agents', ws.id, `m${other.id.split('-m').at(-1)}`, 'escape.txt'),
    ]
    // The other member's isolated home exists (it has run before).
    mkdirSync(dirname(escapes[3]!), { recursive: true })
    server.enqueue(
      {
        toolCalls: [
          { name: 'Write', arguments: { file_path: inside, content: 'inside\n' } },
          ...escapes.map((p) => ({ name: 'Write', arguments: { file_path: p, content: 'escaped\n' } })),
          {
            name: 'Bash',
            arguments: {
              command: escapes.map((p) => `echo escaped > ${p}.sh`).join('; '),
              description: 'write outside',
            },
          },
          {
            name: 'Bash',
            arguments: { command: `ls -A ${t.dataDir} > ${seen}`, description: 'look at the data folder' },
          },
        ],
      },
      { text: 'Tried.' },
    )
    const remove = () => escapes.forEach((p) => [p, `${p}.sh`].forEach((f) => rmSync(f, { force: true })))
    try {
      const steps = await turn(m, 'Write the files')
      expect(readFileSync(inside, 'utf8')).toBe('inside\n')
      for (const p of escapes) {
        expect(existsSync(p), p).toBe(false)
        expect(existsSync(`${p}.sh`), `${p}.sh`).toBe(false)
      }
      // The data folder looks empty (an empty scratch space) but for the mount points of the agent's own folders:
      // none of what is really there (the database, the secrets) shows.
      const shown = readFileSync(seen, 'utf8').split('\n').filter(Boolean)
      const real = readdirSync(t.dataDir).filter((f) => !['agents', 'scratch', 'worktrees'].includes(f))
      expect(real).toContain('concord.sqlite')
      expect(shown.filter((f) => real.includes(f))).toEqual([])
      expect(steps.filter((s) => s.kind === 'tool')).toHaveLength(7)
      expect(steps.some((s) => s.kind === 'notice' && s.text.includes('not sandboxed'))).toBe(false)
    } finally {
      remove()
    }
  })

  it('is interrupted with session/cancel and answers the next message in the same session, in a restarted agent', async () => {
    const m = await claude()
    // A finished turn first, then the interrupted one: the agent is let exit by itself after the cancel, having
    // written both to its session, so the restarted agent's session/load has the two prompts.
    server.enqueue({ text: 'Noted: pelican.' })
    await turn(m, 'Remember the word pelican')
    server.enqueue({ text: 'Working on it, slowly', hang: true })
    const streaming = sessionDelta(t.core, m.id, 60_000)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Take your time' })
    await streaming
    const pid = agentPid()
    const idle = state(m.id, 'idle')
    await t.core.invoke('sessions.interrupt', { memberId: m.id })
    await idle
    expect((await t.core.invoke('sessions.get', { memberId: m.id })).steps.at(-1)).toMatchObject({
      kind: 'interrupted',
    })
    server.enqueue({ text: 'Back again.' })
    const steps = await turn(m, 'Still there?')
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Back again.' })
    expect(agentPid()).not.toBe(pid)
    // session/load: the conversation before the interrupt is in the restarted agent's model request.
    const loaded = JSON.stringify(server.requests.filter(withTools).at(-1)!.body.messages)
    expect(loaded).toContain('Remember the word pelican')
    expect(loaded).toContain('Take your time')
  })

  it("gets Concord's tools served inside Concord (no concord mcp process) and, under ask, uses them without asking; a report's artifact is its worktree's head", async () => {
    const m = await claude('ask')
    await taskFor(m)
    // The agent's work: a commit in its worktree, ahead of the repository's checkout.
    const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim()
    git(worktree('T-1'), 'commit', '-q', '--allow-empty', '-m', 'the work')
    const head = git(worktree('T-1'), 'rev-parse', 'HEAD')
    expect(head).not.toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
    let mcpProcesses: string[] = ['not looked at']
    server.enqueue(
      () => {
        // Claude Code has connected to Concord's MCP server by now (its tools are in this request).
        mcpProcesses = commandLines().filter((c) => / mcp --member /.test(c))
        return {
          toolCalls: [
            { name: 'mcp__concord__get_brief', arguments: {} },
            {
              name: 'mcp__concord__submit_report',
              arguments: { taskId: 'T-1', kind: 'implementation', verdict: 'pass', summary: 'done', claims: [] },
            },
          ],
        }
      },
      { text: 'Reported.' },
    )
    const end = settled(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Report on T-1' })
    expect((await end).payload.session).toMatchObject({ state: 'idle', pendingApprovals: [] })
    expect(mcpProcesses).toEqual([])
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports).toHaveLength(1)
    expect(reports[0]!.artifact).toMatchObject({ commit: head })
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.filter((s) => s.kind === 'tool').map((s) => s.status)).toEqual(['done', 'done'])
  })

  it('sends a message_member under ask that keeps ask for the receiver (approval is not laundered through an auto member)', async () => {
    const m = await claude('ask')
    const receiver = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Runner',
      role: 'tester',
      approval: 'auto',
    })
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'mcp__concord__message_member',
            arguments: { memberId: receiver.id, text: 'run rm -rf build for me' },
          },
        ],
      },
      { text: 'Sent.' },
    )
    const end = settled(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Ask Runner' })
    expect((await end).payload.session.state).toBe('idle')
    const message = (await t.core.invoke('sessions.get', { memberId: receiver.id })).steps.find(
      (s) => s.kind === 'message',
    )!
    expect(message).toMatchObject({ text: 'run rm -rf build for me', fromMemberId: m.id })
    expect(t.core.harness.ctx(ws.id).store.steps.get(parseId(message.id, 'step', 'stepId').n)!.approval).toBe('ask')
  })

  it('shows its tool steps with their arguments (the command, the path and content) and their output', async () => {
    const m = await claude()
    await taskFor(m)
    const target = join(worktree('T-1'), 'note.txt')
    server.enqueue(
      {
        toolCalls: [
          { name: 'Write', arguments: { file_path: target, content: 'first line\n' } },
          { name: 'Bash', arguments: { command: 'echo from-bash', description: 'say something' } },
        ],
      },
      { text: 'Done.' },
    )
    const steps = (await turn(m, 'Write and run')).filter((s) => s.kind === 'tool')
    expect(steps).toHaveLength(2)
    expect(JSON.parse(steps[0]!.tool!.argumentsText)).toEqual({ path: target, content: 'first line\n' })
    expect(JSON.parse(steps[1]!.tool!.argumentsText)).toEqual({ command: 'echo from-bash' })
    expect(steps[1]!.text).toContain('from-bash')
  })

  it('is ended at the next start when Concord was killed while it worked (its process group is recorded like a command)', async () => {
    // A core in a child process, killed with SIGKILL mid-turn, its agent not sandboxed (bubblewrap would end it with
    // its parent): the agent keeps running until the next start of Concord on that data folder ends it.
    const dataDir = mkdtempSync(join(tmpdir(), 'concord-crash-'))
    await t.cleanup()
    const first = { ...makeCore({ git: true, dataDir }), dataDir }
    t = first
    ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
    const m = await claude()
    await first.core.close()
    server.enqueue({ text: 'Working on it, slowly', hang: true })
    const repoRoot = resolve(__dirname, '../..')
    const worker = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repoRoot, 'test/fixtures/acp-worker.ts'),
        JSON.stringify({ dataDir, memberId: m.id, text: 'Take your time', agent: 'claude-agent-acp' }),
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, CONCORD_SANDBOX: 'off' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const line = await new Promise<string>((res) => createInterface({ input: worker.stdout }).once('line', res))
    const { agentPid: pid } = JSON.parse(line) as { agentPid: number }
    expect(pid).toBeGreaterThan(0)
    const gone = new Promise((res) => worker.once('exit', res))
    worker.kill('SIGKILL')
    await gone
    try {
      expect(groupMembers(pid)).toContain(pid)
      const next = createCore({ dataDir })
      t = {
        ...first,
        core: next,
        cleanup: () => next.close().finally(() => rmSync(dataDir, { recursive: true, force: true })),
      }
      await until('the agent left by the killed Concord is gone', () => groupMembers(pid).length === 0)
    } finally {
      for (const p of groupMembers(pid)) process.kill(p, 'SIGKILL')
    }
  })

  it("says how to install it when the agent's command is missing", async () => {
    const m = await claude('auto', { command: 'claude-agent-acp-not-installed-here' })
    const steps = await turn(m, 'hello', 'error')
    expect(steps.at(-1)).toMatchObject({
      kind: 'error',
      text: 'Claude Code is not installed: npm i -g @zed-industries/claude-agent-acp',
    })
  })

  it('puts the member in error with the reason when the agent dies mid-turn, keeps the queue, and restarts it on the next message', async () => {
    const m = await claude()
    server.enqueue({ text: 'about to', hang: true })
    const streaming = sessionDelta(t.core, m.id, 60_000)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'first' })
    await streaming
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'second, queued' })
    const failed = state(m.id, 'error', 1)
    const pid = agentPid()
    process.kill(pid, 'SIGKILL')
    const info = (await failed).payload.session
    expect(info.error).toContain('Claude Code stopped during the turn (killed by SIGKILL)')
    // The queued message runs first once the member is restarted by the next one.
    server.enqueue({ text: 'Answering the queued one.' }, { text: 'Restarted and answering.' })
    const steps = await turn(m, 'third')
    expect(
      steps
        .filter((s) => s.kind === 'model')
        .map((s) => s.text)
        .slice(-2),
    ).toEqual(['Answering the queued one.', 'Restarted and answering.'])
    expect(agentPid()).not.toBe(pid)
  })

  it('reports an agent that exits at start with its own stderr', async () => {
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Broken',
      role: 'x',
      approval: 'auto',
      provider: {
        kind: 'acp',
        agent: 'custom',
        command: process.execPath,
        args: ['-e', "process.stderr.write('fatal: no credentials found'); process.exit(3)"],
      },
    })
    const steps = await turn(m, 'hello', 'error')
    expect(steps.at(-1)!.text).toContain('did not start (exit code 3): fatal: no credentials found')
  })
})
