/**
 * `concord mcp --member` as a real process, driven by the real MCP SDK client over stdio, while the
 * app's core has the same data folder open (as when a user's own Claude Code runs beside Concord).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import net from 'node:net'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { waitForEvent } from '../fixtures/core'
import { apiTask, editToGraphQL } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'
import { McpGateway } from '../../electron/main/runtime/mcp/agent-gateway'
import { appBinding, type AgentTurnState } from '../../electron/main/runtime/mcp/app-binding'
import type { ApprovalPolicy } from '../../electron/main/harness/members/approval-policy'

const bin = resolve(__dirname, '../../bin/concord.js')

let t: OpenWorkspace
let ws: Workspace
let impl: Member
let decision: Decision
const clients: Client[] = []

beforeEach(async () => {
  t = await openWorkspace({ git: true })
  ws = t.ws
  impl = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Impl',
    role: 'implementer',
    authority: 'proposer',
    approval: 'auto',
  })
  decision = (await apiTask(t.core, ws.id, impl)).d
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await t.cleanup()
})

async function connect(memberId: string, dataDir = t.dataDir): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--member', memberId, '--data-dir', dataDir],
    stderr: 'pipe',
  })
  const client = new Client({ name: 'test', version: '1.0.0' })
  clients.push(client)
  await client.connect(transport)
  return client
}

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) =>
  (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n')

describe('concord mcp', () => {
  it("offers the harness tools by the member's authority, with the built-in tools' input schemas", async () => {
    const client = await connect(impl.id)
    expect(client.getServerVersion()?.name).toBe('concord')
    const { tools } = await client.listTools()
    const names = tools.map((x) => x.name).sort()
    expect(names).toEqual([
      'acknowledge_task',
      'ask_human',
      'get_brief',
      'get_decision',
      'get_report',
      'list_decisions',
      'list_reports',
      'message_member',
      'propose_decision_change',
      'submit_plan',
      'submit_report',
      'update_task_status',
    ])
    const report = tools.find((x) => x.name === 'submit_report')!.inputSchema as {
      properties: Record<string, { enum?: string[] }>
      required: string[]
    }
    expect(report.properties.verdict!.enum).toEqual(['pass', 'fail', 'partial'])
    expect(report.required).toEqual(expect.arrayContaining(['taskId', 'kind', 'verdict', 'summary', 'claims']))

    const decider = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lead',
      role: 'lead',
      authority: 'decider',
      approval: 'auto',
    })
    const asDecider = await connect(decider.id)
    expect((await asDecider.listTools()).tools.map((x) => x.name)).toContain('update_decision')
  })

  it("reads a task's reports: list_reports and get_report, claims with their verdicts (issue 33)", async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    const r = await t.core.invoke('reports.submit', {
      taskId: (await t.core.invoke('tasks.list', { workspaceId: ws.id }))[0]!.id,
      kind: 'test',
      verdict: 'fail',
      summary: 'POST breaks',
      artifact: { commit: head },
      claims: [
        { text: 'GET /items works', decisionIds: [decision.id], verdict: 'pass' },
        { text: 'POST /items returns 201', decisionIds: [decision.id], verdict: 'fail' },
      ],
    })
    const client = await connect(impl.id)
    const list = textOf(await client.callTool({ name: 'list_reports', arguments: { taskId: 'T-1' } }))
    expect(list).toBe(`${r.key} (id ${r.id}) test fail [valid]: POST breaks`)
    const one = textOf(await client.callTool({ name: 'get_report', arguments: { reportId: r.key } }))
    expect(one).toContain(`on commit ${head}`)
    expect(one).toContain('Summary: POST breaks')
    expect(one).toContain('1. [pass] GET /items works')
    expect(one).toContain('2. [fail] POST /items returns 201')
    const missing = await client.callTool({ name: 'get_report', arguments: { reportId: 'R-99' } })
    expect(missing.isError).toBe(true)
  })

  it('reads decisions and submits a report whose basis is the current version and artifact the HEAD commit', async () => {
    const client = await connect(impl.id)
    // The running app hears of the report at once (through its relay), as its UI does.
    const heard = waitForEvent<{ report: { authorId: string } }>(t.core, (e) => e.event === 'report.submitted')
    expect(textOf(await client.callTool({ name: 'get_decision', arguments: { decisionId: 'D-1' } }))).toContain(
      'D-1 v1 [accepted] "API" (id',
    )
    expect(textOf(await client.callTool({ name: 'get_brief', arguments: {} }))).toContain('Build API')
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    const r = await client.callTool({
      name: 'submit_report',
      arguments: {
        taskId: 'T-1',
        kind: 'implementation',
        verdict: 'pass',
        summary: 'REST endpoints done',
        claims: [{ text: 'GET /items works', decisionIds: ['D-1'] }],
      },
    })
    expect(r.isError).toBeFalsy()
    expect(textOf(r)).toContain('basis D-1 v1')
    expect((await heard).payload.report.authorId).toBe(impl.id)
    // The app's core (another process on the same files) sees the report.
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({
      authorId: impl.id,
      artifact: { commit: head },
      basis: [{ decisionId: decision.id, version: 1 }],
      validity: 'valid',
    })
    // The call shows in the member's session.
    const steps = (await t.core.invoke('sessions.get', { memberId: impl.id })).steps
    expect(steps.at(-1)).toMatchObject({ kind: 'tool', status: 'done' })
  })

  it('delivers a notice queued by a decision change with the next tool result, once', async () => {
    const client = await connect(impl.id)
    await editToGraphQL(t.core, decision)
    expect(await t.core.invoke('notices.list', { memberId: impl.id, pending: true })).toHaveLength(1)
    const first = textOf(await client.callTool({ name: 'list_decisions', arguments: {} }))
    expect(first).toContain('D-1 v2 [accepted] "API"')
    expect(first).toContain('Notices from Concord')
    expect(await t.core.invoke('notices.list', { memberId: impl.id, pending: true })).toEqual([])
    expect(textOf(await client.callTool({ name: 'list_decisions', arguments: {} }))).not.toContain(
      'Notices from Concord',
    )
  })

  it('lists every input schema as strict JSON Schema 2020-12 with closed objects, and refuses an extra argument (issue 35)', async () => {
    const decider = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lead',
      role: 'lead',
      authority: 'decider',
      approval: 'auto',
    })
    const client = await connect(decider.id)
    const { tools } = await client.listTools()
    expect(tools.length).toBeGreaterThan(10)
    // A client that loads only 2020-12, in strict mode: an unknown dialect, keyword or format fails to compile.
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    const closedEverywhere = (s: unknown, at: string): string[] => {
      if (!s || typeof s !== 'object') return []
      const o = s as Record<string, unknown>
      const here = o.type === 'object' && o.additionalProperties !== false ? [at] : []
      return [...here, ...Object.entries(o).flatMap(([k, v]) => closedEverywhere(v, `${at}.${k}`))]
    }
    for (const tool of tools) {
      expect(tool.inputSchema.$schema, tool.name).toBe('https://json-schema.org/draft/2020-12/schema')
      const validate = ajv.compile(tool.inputSchema)
      expect(closedEverywhere(tool.inputSchema, tool.name)).toEqual([])
      expect(validate.errors ?? null).toBeNull()
    }
    const report = ajv.compile(tools.find((x) => x.name === 'submit_report')!.inputSchema)
    const good = {
      taskId: 'T-1',
      kind: 'implementation',
      verdict: 'pass',
      summary: 'done',
      claims: [{ text: 'GET /items works', decisionIds: ['D-1'] }],
    }
    expect(report(good), JSON.stringify(report.errors)).toBe(true)

    // The server refuses what the schema refuses: an extra argument at the top and inside a claim, nothing done.
    for (const args of [
      { ...good, priority: 'high' },
      { ...good, claims: [{ ...good.claims[0], severity: 'low' }] },
    ]) {
      expect(report(args)).toBe(false)
      const r = await client.callTool({ name: 'submit_report', arguments: args })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(
        /^error \(invalid_arguments\): Invalid arguments for submit_report: .*(priority|severity)/,
      )
    }
    const extra = await client.callTool({ name: 'get_brief', arguments: { verbose: true } })
    expect(extra.isError).toBe(true)
    expect(textOf(extra)).toContain('error (invalid_arguments)')
    expect(await t.core.invoke('reports.list', { workspaceId: ws.id })).toEqual([])
    expect((await client.callTool({ name: 'submit_report', arguments: good })).isError).toBeFalsy()
  })

  it('refuses bad arguments, another workspace and calls that need approval, each with its reason', async () => {
    const client = await connect(impl.id)
    const bad = await client.callTool({
      name: 'submit_report',
      arguments: { taskId: 'T-1', kind: 'novel', verdict: 'pass', summary: '', claims: [] },
    })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/kind/)
    const foreign = await client.callTool({ name: 'get_decision', arguments: { decisionId: 'w00000000-d1' } })
    expect(foreign.isError).toBe(true)
    expect(textOf(foreign)).toContain('error (not_found)')

    const lead = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lead',
      role: 'lead',
      authority: 'decider',
      approval: 'ask',
    })
    const asLead = await connect(lead.id)
    const refused = await asLead.callTool({
      name: 'update_decision',
      arguments: { decisionId: 'D-1', expectedVersion: 1, statement: 'Use gRPC', reason: 'speed' },
    })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain('error (approval_required)')
    expect((await t.core.invoke('decisions.get', { decisionId: decision.id })).version).toBe(1)
  })

  it('fails at start with a clear message for an unknown member or data folder', async () => {
    await expect(connect(`${ws.id}-m99`)).rejects.toThrow()
    let stderr = ''
    try {
      execFileSync(process.execPath, [bin, 'mcp', '--member', impl.id, '--data-dir', join(t.dataDir, 'nowhere')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    } catch (err) {
      stderr = (err as { stderr: string }).stderr
    }
    expect(stderr).toContain('there is no Concord data folder')
  })

  it("pushes what an agent in the user's own terminal does to the running app: domain events and the steps in its session", async () => {
    // The app's bus is what the bridge streams to an open browser (and the desktop window).
    const heard: { event: string; payload: Record<string, unknown> }[] = []
    t.core.bus.on((e) => heard.push(e))
    const seen = (event: string, match: (p: Record<string, unknown>) => boolean = () => true) =>
      waitForEvent(t.core, (e) => e.event === event && match(e.payload as Record<string, unknown>), 15_000)
    const stepOf = (memberId: string, tool: string) => (p: Record<string, unknown>) =>
      p.memberId === memberId && (p.step as { tool?: { name?: string } | null }).tool?.name === tool
    const lead = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lead',
      role: 'lead',
      authority: 'decider',
      approval: 'auto',
    })
    const client = await connect(impl.id)
    const asLead = await connect(lead.id)

    let events: Promise<unknown> = Promise.all([
      seen('proposal.changed'),
      seen('session.step', stepOf(impl.id, 'propose_decision_change')),
    ])
    expect(
      (
        await client.callTool({
          name: 'propose_decision_change',
          arguments: { decisionId: 'D-1', statement: 'Use GraphQL', reason: 'clients' },
        })
      ).isError,
    ).toBeFalsy()
    await events
    events = Promise.all([seen('decision.changed'), seen('session.step', stepOf(lead.id, 'update_decision'))])
    expect(
      (
        await asLead.callTool({
          name: 'update_decision',
          arguments: { decisionId: 'D-1', expectedVersion: 1, statement: 'Use gRPC', reason: 'latency' },
        })
      ).isError,
    ).toBeFalsy()
    await events
    // The decision change flagged the task: the notice goes out with the implementer's next tool result, a step too.
    events = Promise.all([
      seen('report.submitted'),
      seen('session.step', stepOf(impl.id, 'submit_report')),
      seen('session.step', (p) => p.memberId === impl.id && (p.step as { kind: string }).kind === 'notice'),
    ])
    const report = await client.callTool({
      name: 'submit_report',
      arguments: { taskId: 'T-1', kind: 'implementation', verdict: 'pass', summary: 'from my terminal', claims: [] },
    })
    expect(report.isError).toBeFalsy()
    await events
    events = Promise.all([
      seen('task.changed', (p) => (p.task as Task).status === 'delivered'),
      seen('session.step', stepOf(impl.id, 'update_task_status')),
    ])
    expect(
      (await client.callTool({ name: 'update_task_status', arguments: { taskId: 'T-1', status: 'delivered' } }))
        .isError,
    ).toBeFalsy()
    await events
    // The steps shown are the ones stored: a reload gives the same session.
    const stored = (await t.core.invoke('sessions.get', { memberId: impl.id })).steps.map((x) => x.id)
    const pushed = heard
      .filter((e) => e.event === 'session.step' && e.payload.memberId === impl.id)
      .map((e) => (e.payload.step as { id: string }).id)
    expect(pushed).toEqual(stored)
  })

  it("takes events on the app's relay only with its per-run secret", async () => {
    const { address, secret } = JSON.parse(readFileSync(join(t.dataDir, 'run', 'relay.json'), 'utf8')) as {
      address: string
      secret: string
    }
    expect(statSync(join(t.dataDir, 'run', 'relay.json')).mode & 0o077).toBe(0)
    const heard: string[] = []
    t.core.bus.on((e) => heard.push(e.event))
    const send = (lines: object[]) =>
      new Promise<void>((resolve) => {
        const socket = net.connect(address, () => socket.end(lines.map((l) => `${JSON.stringify(l)}\n`).join('')))
        socket.on('close', () => resolve())
      })
    const task = (await t.core.invoke('tasks.list', { workspaceId: ws.id }))[0]
    await send([{ secret: 'guessed', event: 'task.changed', payload: { workspaceId: ws.id, task } }])
    // A session event is the app's own business, even with the secret; a domain event with it is taken.
    await send([
      { secret, event: 'session.reset', payload: { workspaceId: ws.id, memberId: impl.id } },
      { secret, event: 'task.changed', payload: { workspaceId: ws.id, task } },
    ])
    expect(heard).toEqual(['task.changed'])
  })
})

describe("Concord's MCP tools for an agent Concord runs (the gateway, inside the running Concord)", () => {
  const gateways: McpGateway[] = []
  afterEach(() => gateways.splice(0).forEach((g) => g.close()))

  /** A gateway bound to the live core as `memberId`, in a turn working in `root`; what it queues and asks is kept. */
  async function gateway(memberId: string, turn: Omit<AgentTurnState, 'signal'>) {
    const queued: { to: string; text: string; approval: ApprovalPolicy }[] = []
    const asked: string[] = []
    const g = new McpGateway(() =>
      appBinding({
        harness: t.core.harness,
        workspaceId: ws.id,
        memberId,
        call: (method, params) => t.core.invoke(method, params),
        turn: () => ({ ...turn, signal: new AbortController().signal }),
        approve: async (name) => {
          asked.push(name)
          return true
        },
        message: (to, text, approval) => queued.push({ to, text, approval }),
      }),
    )
    gateways.push(g)
    await g.ready
    return { g, queued, asked }
  }

  /** The agent's side: the proxy program of the gateway's server entry, driven by the real MCP client. */
  async function agentClient(g: McpGateway, env: Record<string, string> = {}): Promise<Client> {
    const entry = g.serverEntry('concord')
    const vars = {
      PATH: process.env.PATH ?? '',
      ...Object.fromEntries(entry.env.map((e) => [e.name, e.value])),
      ...env,
    }
    const client = new Client({ name: 'agent', version: '1.0.0' })
    clients.push(client)
    await client.connect(
      new StdioClientTransport({ command: entry.command, args: entry.args, env: vars, stderr: 'pipe' }),
    )
    return client
  }

  it("serves the member's tools in this process; a report's artifact is the head of the turn's tree and a message carries the turn's policy", async () => {
    // The agent's tree: a worktree of the repository whose head is not the checkout's.
    const tree = join(t.dataDir, 'tree')
    const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim()
    git(t.repoDir, 'worktree', 'add', '-q', '-b', 'side', tree)
    git(tree, 'commit', '-q', '--allow-empty', '-m', 'the work')
    const treeHead = git(tree, 'rev-parse', 'HEAD')
    const { g, queued, asked } = await gateway(impl.id, { root: tree, approval: 'ask' })
    const client = await agentClient(g)
    expect((await client.listTools()).tools.map((x) => x.name)).toContain('submit_report')
    const r = await client.callTool({
      name: 'submit_report',
      arguments: { taskId: 'T-1', kind: 'implementation', verdict: 'pass', summary: 'done', claims: [] },
    })
    expect(textOf(r)).not.toContain('error')
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports[0]!.artifact?.commit).toBe(treeHead)
    expect(treeHead).not.toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
    const other = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Other',
      role: 'tester',
      approval: 'auto',
    })
    expect(
      (await client.callTool({ name: 'message_member', arguments: { memberId: other.id, text: 'hello' } })).isError,
    ).toBeFalsy()
    // The member is auto; its turn (started by a message under ask) is not: the message keeps ask.
    expect(impl.approval).toBe('auto')
    expect(queued).toEqual([{ to: other.id, text: 'hello', approval: 'ask' }])
    // A call that needs approval under the turn's policy goes to the member's host.
    const cancel = await client.callTool({
      name: 'update_task_status',
      arguments: { taskId: 'T-1', status: 'cancelled' },
    })
    expect(cancel.isError).toBeFalsy()
    expect(asked).toEqual(['update_task_status'])
  })

  it('refuses a connection without the gateway token', async () => {
    const { g } = await gateway(impl.id, { root: t.repoDir, approval: 'auto' })
    await expect(agentClient(g, { CONCORD_MCP_TOKEN: 'guessed' })).rejects.toThrow()
  })
})
