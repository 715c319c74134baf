/**
 * The checks the shipped suite runs for every agent: its tools, report, decision notice and automatic turn; an
 * interrupt; approval under ask (allow, and a Deny's reason); confinement to its tree; a restart of Concord; a missing
 * program and a crash. They run in this order on one member, against the suite's one `concord serve`.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it, type TestContext } from 'vitest'
import type { ModelServer, RecordedRequest } from '../fixtures/model-server'
import type { AgentCase } from './agent-cases'
import { agentPid } from './agent-process'
import { gitRepo, type Envelope, type Served } from './installed'

/** What the checks use of the running suite: the app (a new one after a restart), the model server, the folder. */
export interface Shipped {
  readonly base: string
  readonly app: Served
  readonly server: ModelServer
  /** Stops `concord serve` and starts it again on the same data folder. */
  restart(): Promise<void>
  /** Answers a turn request the script has no reply for, after a Deny (see the ask check). */
  afterDeny: ((r: RecordedRequest) => { text: string } | undefined) | undefined
  timed(label: string, since: number): void
}

/** The agent's workspace and member, shared by its checks (each check leaves the member idle). */
interface Member {
  ws?: any
  m?: any
  repo?: string
  data: string
}

/** The same blocking edit a human makes in the UI, while the agent's model call is in flight (this process is blocked, Concord is not). */
function editDecisionNow(app: Served, decisionId: string): void {
  const script = `fetch(${JSON.stringify(`http://127.0.0.1:${app.port}/api/decisions.update`)}, { method: 'POST', headers: { authorization: 'Bearer ${app.token}', 'content-type': 'application/json' }, body: JSON.stringify({ decisionId: ${JSON.stringify(decisionId)}, expectedVersion: 1, statement: 'Use GraphQL', reason: 'clients asked' }) }).then((r) => r.json()).then((b) => { if (!b.ok) { console.error(JSON.stringify(b)); process.exit(1) } })`
  execFileSync(process.execPath, ['-e', script], { stdio: 'pipe' })
}

const tag = (agent: { processName: string }) => agent.processName

function checkKit(agent: AgentCase, ctx: Shipped, c: Member) {
  const idleOf = (memberId: string, timeoutMs = 120_000) =>
    ctx.app.waitForEvent(
      (e) =>
        e.event === 'session.state' &&
        e.payload.session.memberId === memberId &&
        e.payload.session.state === 'idle' &&
        e.payload.session.queued === 0,
      timeoutMs,
    )
  const stateOf = (memberId: string, state: string, queued?: number) =>
    ctx.app.waitForEvent(
      (e) =>
        e.event === 'session.state' &&
        e.payload.session.memberId === memberId &&
        e.payload.session.state === state &&
        (queued === undefined || e.payload.session.queued === queued),
      120_000,
    )
  const stepsOf = async (memberId: string) =>
    (await ctx.app.call('sessions.get', { memberId, limit: 500 })).steps as {
      id: string
      kind: string
      status?: string
      text?: string
    }[]
  const show = (steps: { kind: string; status?: string; text?: string }[]) =>
    JSON.stringify(steps.map((s) => [s.kind, s.status, s.text?.slice(0, 300)]))
  const turnsSince = (n: number) => ctx.server.requests.slice(n).filter(agent.turns)
  const trees = () => {
    const dir = join(c.data, 'worktrees', c.ws.id)
    return existsSync(dir) ? readdirSync(dir).map((t) => join(dir, t)) : []
  }
  async function turn(text: string, ...replies: object[]) {
    ctx.server.enqueue(...(replies as any[]))
    const idle = idleOf(c.m.id)
    await ctx.app.call('sessions.send', { memberId: c.m.id, text })
    await idle
    return stepsOf(c.m.id)
  }
  return { agent, ctx, c, idleOf, stateOf, stepsOf, show, turnsSince, trees, turn }
}

type Kit = ReturnType<typeof checkKit>

/** The checks run for every agent, in this order, on one workspace and member of its own. */
export function agentChecks(agent: AgentCase, ctx: Shipped): void {
  /** The agent's workspace and member, shared by its checks below (each check leaves the member idle). */
  const c: Member = { data: join(ctx.base, 'data') }
  const k = checkKit(agent, ctx, c)
  it(
    `a ${agent.label} member gets Concord's tools, reports through them, is told of a decision change at its next step and takes an automatic turn for its flagged task`,
    () => toolsReportAndNotices(k),
    180_000,
  )
  it(
    `a ${agent.label} member is interrupted during a turn, the turn ends as interrupted and the next message works`,
    () => interrupted(k),
    180_000,
  )
  it(
    `a ${agent.label} member under ask: a command waits for the human, runs once allowed, and a Deny's reason reaches the agent`,
    () => underAsk(k),
    240_000,
  )
  it(
    `a ${agent.label} member is confined to its tree: a command that writes outside it does not`,
    (test) => confined(k, test),
    180_000,
  )
  it(
    `a ${agent.label} member after Concord restarts mid-session: ${agent.loadsSession ? 'its session is loaded' : 'a new session whose first prompt carries the brief'}`,
    () => afterRestart(k),
    180_000,
  )
  it(
    `a ${agent.label} member whose program is missing or crashes: a clear error in the session, the queue kept, nothing hangs`,
    () => missingOrCrashed(k),
    180_000,
  )
}

/** A workspace on a new repository and a member of the agent in it, with the user's own settings of the agent. */
async function createMember(k: Kit): Promise<{ ws: any; m: any }> {
  const { agent, ctx, c } = k
  const repo = gitRepo(join(ctx.base, 'repos', agent.label.replace(/\W/g, '-').toLowerCase()))
  const ws = await ctx.app.call('workspaces.open', { repoPath: repo })
  const m = await ctx.app.call('members.create', {
    workspaceId: ws.id,
    name: agent.label,
    role: 'implementer',
    authority: 'proposer',
    approval: 'auto',
    provider: agent.provider(),
  })
  Object.assign(c, { ws, m, repo })
  if (agent.settings) {
    // The member's isolated home, where Concord points the agent's HOME and its own config variables.
    const file = join(c.data, 'agents', ws.id, `m${String(m.id).split('-m').at(-1)}`, agent.settings.file)
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, JSON.stringify(agent.settings.content))
  }
  return { ws, m }
}

async function toolsReportAndNotices(k: Kit): Promise<void> {
  const { agent, ctx } = k
  const t = Date.now()
  const { ws, m } = await createMember(k)
  const d = await ctx.app.call('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
  const task = await ctx.app.call('tasks.create', {
    workspaceId: ws.id,
    title: 'Build API',
    assigneeId: m.id,
    decisionIds: [d.id],
  })
  await ctx.app.call('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  const before = ctx.server.requests.length
  ctx.server.enqueue(
    () => {
      editDecisionNow(ctx.app, d.id)
      return { toolCalls: [agent.submit] }
    },
    { text: 'Reported; the API is GraphQL now.' },
    // T-1 is still flagged (the agent did not acknowledge it): Concord gives it an automatic turn after this one.
    { text: 'Adjusted T-1 on my own.' },
  )
  const automatic = ctx.app.waitForEvent(
    (e: Envelope) =>
      e.event === 'session.step' &&
      e.payload.memberId === m.id &&
      e.payload.step.kind === 'model' &&
      e.payload.step.text === 'Adjusted T-1 on my own.' &&
      e.payload.step.status === 'done',
    120_000,
  )
  await ctx.app.call('sessions.send', { memberId: m.id, text: 'Build the API and report' })
  await automatic
  const end = await ctx.app.waitForEvent(
    (e: Envelope) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === m.id &&
      e.payload.session.state !== 'running' &&
      e.payload.session.queued === 0,
    120_000,
  )
  const { steps } = await ctx.app.call('sessions.get', { memberId: m.id })
  const shown = JSON.stringify(
    steps.map((s: { kind: string; status?: string; text?: string }) => [s.kind, s.status, s.text?.slice(0, 200)]),
  )
  expect(end.payload.session, shown).toMatchObject({ state: 'idle', error: null })
  const turns = ctx.server.requests.slice(before).filter(agent.turns)
  // Concord's tools reached the agent: its first model request lists them.
  expect(agent.toolNames(turns[0]!).join(' ')).toMatch(agent.concordTools ?? /mcp_+concord/)
  // The report went through them, on the decision as edited.
  const reports = await ctx.app.call('reports.list', { workspaceId: ws.id })
  expect(reports, shown).toHaveLength(1)
  expect(reports[0]).toMatchObject({ authorId: m.id, basis: [{ decisionId: d.id, version: 2 }], validity: 'valid' })
  // The edit reached the agent at its next step: the model's next request carries the notice.
  expect(JSON.stringify(turns[1]!.body)).toContain('Notices from Concord')
  expect(JSON.stringify(turns[1]!.body)).toContain('Use GraphQL')
  // And the session shows its steps: the tool call, the notice, the answer.
  const kinds = steps.map((s: { kind: string }) => s.kind)
  expect(kinds, shown).toEqual(expect.arrayContaining(['user', 'tool', 'notice', 'model']))
  expect(steps.find((s: { kind: string }) => s.kind === 'tool')).toMatchObject({ status: 'done' })
  const replied: number = steps.findIndex(
    (s: { kind: string; text?: string }) => s.kind === 'model' && s.text === 'Reported; the API is GraphQL now.',
  )
  expect(replied, shown).toBeGreaterThan(0)
  // The automatic turn: no human message after the reply, a turn that says why, and the model told of the flag.
  const auto = steps.slice(replied + 1)
  expect(
    auto.map((s: { kind: string }) => s.kind),
    shown,
  ).not.toContain('user')
  expect(auto.at(-1)).toMatchObject({ kind: 'model', text: 'Adjusted T-1 on my own.' })
  expect(JSON.stringify(turns.at(-1)!.body)).toContain('needs adjustment')
  expect(await ctx.app.call('notices.list', { memberId: m.id, pending: true })).toEqual([])
  ctx.timed(agent.label, t)
}

async function interrupted(k: Kit): Promise<void> {
  const { agent, ctx, c, idleOf, stepsOf, show, turn } = k
  const t = Date.now()
  ctx.server.enqueue({ text: 'Working on it, slowly', hang: true })
  const streaming = ctx.app.waitForEvent((e) => e.event === 'session.delta' && e.payload.memberId === c.m.id, 120_000)
  await ctx.app.call('sessions.send', { memberId: c.m.id, text: 'Take your time' })
  await streaming
  const idle = idleOf(c.m.id)
  await ctx.app.call('sessions.interrupt', { memberId: c.m.id })
  await idle
  const steps = await stepsOf(c.m.id)
  expect(steps.at(-1), show(steps.slice(-4))).toMatchObject({ kind: 'interrupted' })
  const next = await turn('Still there?', { text: 'Back again.' })
  expect(next.at(-1), show(next.slice(-4))).toMatchObject({ kind: 'model', text: 'Back again.' })
  ctx.timed(`${agent.label} interrupt`, t)
}

async function underAsk(k: Kit): Promise<void> {
  const { agent, ctx, c, idleOf, stateOf, stepsOf, show, turnsSince, trees } = k
  const t = Date.now()
  await ctx.app.call('members.update', { memberId: c.m.id, approval: 'ask' })
  const tag = agent.processName
  // Allowed.
  ctx.server.enqueue({ toolCalls: [agent.shell(`echo allowed > allowed-${tag}.txt`)] }, { text: 'Ran it.' })
  let asked = ctx.app.waitForEvent(
    (e) =>
      e.event === 'session.state' &&
      e.payload.session.memberId === c.m.id &&
      (e.payload.session.state === 'waiting_approval' ||
        (e.payload.session.state === 'idle' && e.payload.session.queued === 0)),
    120_000,
  )
  await ctx.app.call('sessions.send', { memberId: c.m.id, text: 'Make the allowed file' })
  let waiting = (await asked).payload.session
  expect(waiting.state, show((await stepsOf(c.m.id)).slice(-4))).toBe('waiting_approval')
  expect(waiting.pendingApprovals).toHaveLength(1)
  expect(trees().filter((d) => existsSync(join(d, `allowed-${tag}.txt`)))).toEqual([])
  const idle = idleOf(c.m.id)
  await ctx.app.call('sessions.approve', { memberId: c.m.id, callId: waiting.pendingApprovals[0].callId, allow: true })
  await idle
  expect(
    trees().filter((d) => existsSync(join(d, `allowed-${tag}.txt`))),
    show((await stepsOf(c.m.id)).slice(-4)),
  ).toHaveLength(1)
  // Denied, with a reason.
  const before = ctx.server.requests.length
  const deny: { heard?: Promise<Envelope> } = {}
  ctx.server.enqueue(() => {
    ctx.afterDeny = (r) => {
      if (!agent.turns(r)) return undefined
      if (JSON.stringify(r.body).includes('use the editor instead')) {
        ctx.afterDeny = undefined
        deny.heard = idleOf(c.m.id)
        return { text: 'Understood: not run.' }
      }
      return { text: 'It was not run.' }
    }
    return { toolCalls: [agent.shell(`echo denied > denied-${tag}.txt`)] }
  })
  asked = stateOf(c.m.id, 'waiting_approval')
  await ctx.app.call('sessions.send', { memberId: c.m.id, text: 'Make the denied file' })
  waiting = (await asked).payload.session
  await ctx.app.call('sessions.approve', {
    memberId: c.m.id,
    callId: waiting.pendingApprovals[0].callId,
    allow: false,
    reason: 'use the editor instead',
  })
  while (deny.heard === undefined) await ctx.server.waitForRequests(ctx.server.requests.length + 1, 120_000)
  await deny.heard
  expect(trees().filter((d) => existsSync(join(d, `denied-${tag}.txt`)))).toEqual([])
  const steps = await stepsOf(c.m.id)
  expect(steps.find((s) => s.kind === 'tool' && s.status === 'denied')?.text, show(steps.slice(-6))).toBe(
    'Denied by the human: use the editor instead',
  )
  expect(steps.slice(-6).filter((s) => s.kind === 'interrupted')).toEqual([])
  expect(JSON.stringify(turnsSince(before).map((r) => r.body))).toContain('The human denied a call of your last turn')
  await ctx.app.call('members.update', { memberId: c.m.id, approval: 'auto' })
  ctx.timed(`${agent.label} permissions`, t)
}

async function confined(k: Kit, test: TestContext): Promise<void> {
  const { agent, ctx, c, show, trees, turn } = k
  // Without the OS sandbox nothing confines the agent (its session says it runs not sandboxed): skipped with the
  // reason and the install line, like every sandbox test, and required under CI.
  const { sandbox } = await ctx.app.call('system.info', {})
  if (!sandbox.available) {
    if (process.env.CI)
      throw new Error(`CI requires the sandbox and there is none: ${sandbox.reason ?? 'none is available'}`)
    test.skip(
      `needs the sandbox, and there is none here: ${sandbox.reason ?? 'none is available'}; to install bubblewrap: apt install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)`,
    )
  }
  const t = Date.now()
  const tag = agent.processName
  const outside = [join(ctx.base, `escape-${tag}.txt`), join(c.repo!, `escape-${tag}.txt`)]
  const steps = await turn(
    'Write the files',
    { toolCalls: [agent.shell(`touch ${outside.join(' ')}; echo inside > inside-${tag}.txt`)] },
    { text: 'Tried.' },
  )
  expect(
    trees().filter((d) => existsSync(join(d, `inside-${tag}.txt`))),
    show(steps.slice(-4)),
  ).toHaveLength(1)
  for (const p of outside) expect(existsSync(p), p).toBe(false)
  ctx.timed(`${agent.label} confined`, t)
}

async function afterRestart(k: Kit): Promise<void> {
  const { agent, ctx, c, show, turnsSince, turn } = k
  const t = Date.now()
  expect(await ctx.app.call('notices.list', { memberId: c.m.id, pending: true })).toEqual([])
  await ctx.restart()
  const before = ctx.server.requests.length
  const steps = await turn('After the restart', { text: 'Back after the restart.' })
  expect(steps.at(-1), show(steps.slice(-4))).toMatchObject({ kind: 'model', text: 'Back after the restart.' })
  const body = JSON.stringify(turnsSince(before).at(-1)!.body)
  if (agent.loadsSession) {
    // session/load: the conversation from before the restart is in the model request.
    expect(body).toContain('Build the API and report')
  } else {
    // No session to load: a new session, whose prompt starts with the brief.
    expect(body).not.toContain('Build the API and report')
    expect(body).toContain('# Brief')
  }
  ctx.timed(`${agent.label} restart`, t)
}

async function missingOrCrashed(k: Kit): Promise<void> {
  const { agent, ctx, c, idleOf, stateOf, stepsOf, show } = k
  const t = Date.now()
  const missing = await ctx.app.call('members.create', {
    workspaceId: c.ws.id,
    name: `${agent.label} missing`,
    role: 'implementer',
    approval: 'auto',
    provider: { ...agent.provider(), command: `concord-no-such-${tag(agent)}` },
  })
  const failed = stateOf(missing.id, 'error')
  await ctx.app.call('sessions.send', { memberId: missing.id, text: 'hello' })
  expect((await failed).payload.session.error).toMatch(/is not installed: npm i -g /)
  expect((await stepsOf(missing.id)).at(-1)).toMatchObject({
    kind: 'error',
    text: expect.stringMatching(/is not installed: npm i -g /),
  })
  // Crashes mid-turn, with a message queued behind the turn.
  ctx.server.enqueue({ text: 'about to', hang: true })
  const streaming = ctx.app.waitForEvent((e) => e.event === 'session.delta' && e.payload.memberId === c.m.id, 120_000)
  await ctx.app.call('sessions.send', { memberId: c.m.id, text: 'first' })
  await streaming
  await ctx.app.call('sessions.send', { memberId: c.m.id, text: 'second, queued' })
  const crashed = stateOf(c.m.id, 'error', 1)
  process.kill(agentPid(ctx.app, agent.processName), 'SIGKILL')
  expect((await crashed).payload.session.error).toContain('stopped during the turn (killed by SIGKILL)')
  ctx.server.enqueue({ text: 'Answering the queued one.' })
  const idle = idleOf(c.m.id)
  await ctx.app.call('sessions.restart', { memberId: c.m.id })
  await idle
  const steps = await stepsOf(c.m.id)
  // The queued message is answered by the restarted agent. (Seen once with Gemini CLI in a whole CI run: its
  // first turn after the restart streamed an earlier scripted reply before this one; the end is what matters here.)
  expect(steps.at(-1), show(steps.slice(-5))).toMatchObject({
    kind: 'model',
    text: expect.stringMatching(/Answering the queued one\.$/),
  })
  ctx.timed(`${agent.label} missing and crash`, t)
}
