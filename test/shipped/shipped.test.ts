/**
 * Concord as shipped: the npm package packed from this checkout and installed into an empty folder as a user would,
 * the Claude Code, Codex and Gemini CLI adapters installed from npm as the README says (`npm i -g`, at the versions
 * this project tests), `concord serve` from the installed bin on a fresh data folder, driven only over HTTP and the
 * event WebSocket. The agents play against the scripted model server, offline.
 *
 * One installation for the whole file (npm pack and the two installs run once, in beforeAll; better-sqlite3 may
 * compile from source there), one `concord serve`, then one test per agent and the command line and the browser.
 * The run time of each part is printed at the end.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { launchChromium } from './chromium'
import { concord, ensureBuilt, gitRepo, installShipped, serve, type Envelope, type Installation, type Served } from './installed'

// Not under /tmp: the sandbox gives each agent a private /tmp, where the agents' programs would not be.
const base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'concord-shipped-'))
const started = Date.now()
const timings: string[] = []
let inst: Installation
let app: Served
let server: ModelServer

function timed(label: string, since: number): void {
  timings.push(`${label} ${((Date.now() - since) / 1000).toFixed(1)} s`)
}

beforeAll(async () => {
  let t = Date.now()
  ensureBuilt()
  timed('build check', t)
  inst = await installShipped(base)
  timings.push(`npm pack ${inst.seconds.pack.toFixed(1)} s`, `npm install (package and agents, side by side) ${inst.seconds.install.toFixed(1)} s`)
  // Gemini CLI asks its model router which model to use (generateContent): answered aside, not from the queue.
  server = await startModelServer({ unscripted: (r) => (r.path.endsWith(':generateContent') ? { text: '{"reasoning":"simple","model_choice":"flash"}' } : undefined) })
  t = Date.now()
  app = await serve(inst, join(base, 'data'))
  timed('concord serve start', t)
}, 30 * 60_000)

afterAll(async () => {
  await app?.stop()
  await server?.close()
  timed('shipped suite', started)
  process.stdout.write(`\nshipped suite: ${timings.join('; ')}\n`)
  rmSync(base, { recursive: true, force: true })
})

/** The same blocking edit a human makes in the UI, while the agent's model call is in flight (this process is blocked, Concord is not). */
function editDecisionNow(decisionId: string): void {
  const script = `fetch(${JSON.stringify(`http://127.0.0.1:${app.port}/api/decisions.update`)}, { method: 'POST', headers: { authorization: 'Bearer ${app.token}', 'content-type': 'application/json' }, body: JSON.stringify({ decisionId: ${JSON.stringify(decisionId)}, expectedVersion: 1, statement: 'Use GraphQL', reason: 'clients asked' }) }).then((r) => r.json()).then((b) => { if (!b.ok) { console.error(JSON.stringify(b)); process.exit(1) } })`
  execFileSync(process.execPath, ['-e', script], { stdio: 'pipe' })
}

const report = { taskId: 'T-1', kind: 'implementation', verdict: 'pass', summary: 'done', claims: [{ text: 'endpoints work', decisionIds: ['D-1'] }] }

interface AgentCase {
  label: string
  provider: () => object
  /** The model's call of Concord's submit_report, in the agent's own naming. */
  submit: { name: string; namespace?: string; arguments: object }
  /** The agent's own requests to the model (with its tool list), not its side calls. */
  turns: (r: RecordedRequest) => boolean
  toolNames: (r: RecordedRequest) => string[]
}

const agents: AgentCase[] = [
  {
    label: 'Claude Code',
    provider: () => ({
      kind: 'acp',
      agent: 'claude-code',
      apiKey: 'sk-ant-any',
      isolatedHome: true,
      env: {
        ANTHROPIC_BASE_URL: server.url,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        ENABLE_TOOL_SEARCH: 'false',
        IS_SANDBOX: '1',
      },
    }),
    submit: { name: 'mcp__concord__submit_report', arguments: report },
    turns: (r) => r.path === '/v1/messages' && Array.isArray(r.body?.tools) && r.body.tools.length > 0,
    toolNames: (r) => (r.body.tools as { name: string }[]).map((x) => x.name),
  },
  {
    label: 'Codex',
    provider: () => ({
      kind: 'acp',
      agent: 'codex',
      apiKey: 'sk-any',
      isolatedHome: true,
      args: ['-c', 'model="gpt-5.4"', '-c', 'model_provider="local"', '-c', `model_providers.local={name="local", base_url="${server.openaiBaseURL}", wire_api="responses", env_key="OPENAI_API_KEY"}`],
    }),
    submit: { name: 'submit_report', namespace: 'mcp__concord', arguments: report },
    turns: (r) => r.path === '/v1/responses',
    toolNames: (r) => [JSON.stringify(r.body.tools)],
  },
  {
    label: 'Gemini CLI',
    provider: () => ({ kind: 'acp', agent: 'gemini', apiKey: 'any', isolatedHome: true, env: { GOOGLE_GEMINI_BASE_URL: server.url } }),
    submit: { name: 'mcp_concord_submit_report', arguments: report },
    turns: (r) => r.path.endsWith(':streamGenerateContent'),
    toolNames: (r) => (r.body.tools as { functionDeclarations?: { name: string }[] }[]).flatMap((x) => (x.functionDeclarations ?? []).map((f) => f.name)),
  },
]

describe('Concord as shipped', () => {
  it('serves the renderer from the installed package', async () => {
    expect(inst.bin).toContain(join('node_modules', 'concord'))
    const page = await (await fetch(`http://127.0.0.1:${app.port}/`)).text()
    expect(page).toContain('<div id="root">')
    expect(app.stdout()).not.toContain('UI not built')
  })

  for (const agent of agents) {
    it(`a ${agent.label} member gets Concord's tools, reports through them and is told of a decision change at its next step`, async () => {
      const t = Date.now()
      const repo = gitRepo(join(base, 'repos', agent.label.replace(/\W/g, '-').toLowerCase()))
      const ws = await app.call('workspaces.open', { repoPath: repo })
      const m = await app.call('members.create', { workspaceId: ws.id, name: agent.label, role: 'implementer', authority: 'proposer', approval: 'auto', provider: agent.provider() })
      const d = await app.call('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'Use REST' })
      const task = await app.call('tasks.create', { workspaceId: ws.id, title: 'Build API', assigneeId: m.id, decisionIds: [d.id] })
      await app.call('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const before = server.requests.length
      server.enqueue(
        () => {
          editDecisionNow(d.id)
          return { toolCalls: [agent.submit] }
        },
        { text: 'Reported; the API is GraphQL now.' },
      )
      const idle = app.waitForEvent(
        (e: Envelope) => e.event === 'session.state' && e.payload.session.memberId === m.id && e.payload.session.state !== 'running' && e.payload.session.queued === 0,
        120_000,
      )
      await app.call('sessions.send', { memberId: m.id, text: 'Build the API and report' })
      const end = await idle
      const { steps } = await app.call('sessions.get', { memberId: m.id })
      const shown = JSON.stringify(steps.map((s: { kind: string; status?: string; text?: string }) => [s.kind, s.status, s.text?.slice(0, 200)]))
      expect(end.payload.session, shown).toMatchObject({ state: 'idle', error: null })
      const turns = server.requests.slice(before).filter(agent.turns)
      // Concord's tools reached the agent: its first model request lists them.
      expect(agent.toolNames(turns[0]).join(' ')).toMatch(/mcp_+concord/)
      // The report went through them, on the decision as edited.
      const reports = await app.call('reports.list', { workspaceId: ws.id })
      expect(reports, shown).toHaveLength(1)
      expect(reports[0]).toMatchObject({ authorId: m.id, basis: [{ decisionId: d.id, version: 2 }], validity: 'valid' })
      // The edit reached the agent at its next step: the model's next request carries the notice.
      expect(JSON.stringify(turns[1].body)).toContain('Notices from Concord')
      expect(JSON.stringify(turns[1].body)).toContain('Use GraphQL')
      // And the session shows its steps: the tool call, the notice, the answer.
      const kinds = steps.map((s: { kind: string }) => s.kind)
      expect(kinds, shown).toEqual(expect.arrayContaining(['user', 'tool', 'notice', 'model']))
      expect(steps.find((s: { kind: string }) => s.kind === 'tool')).toMatchObject({ status: 'done' })
      expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Reported; the API is GraphQL now.' })
      expect(await app.call('notices.list', { memberId: m.id, pending: true })).toEqual([])
      timed(agent.label, t)
    }, 180_000)
  }

  it('concord export and concord import from the installed bin', async () => {
    const t = Date.now()
    const repo = join(base, 'repos', 'claude-code')
    // While the app runs, as a user would; the export leaves it alone.
    const exp = await concord(inst, ['export', '--repo', repo, '--format', 'json', '--out', join(base, 'backup'), '--data-dir', join(base, 'data')], repo)
    expect(exp.code, exp.stderr).toBe(0)
    const file = join(base, 'backup', 'concord-export.json')
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(JSON.stringify(doc)).toContain('Use GraphQL')
    expect(existsSync(join(base, 'backup', 'concord-export.schema.json'))).toBe(true)
    const clone = join(base, 'clone')
    execFileSync('git', ['clone', '-q', repo, clone])
    const other = join(base, 'other-data')
    mkdirSync(other)
    const imp = await concord(inst, ['import', file, '--repo', clone, '--data-dir', other], base)
    expect(imp.code, imp.stderr).toBe(0)
    const md = await concord(inst, ['export', '--repo', clone, '--format', 'markdown', '--data-dir', other], clone)
    expect(md.code, md.stderr).toBe(0)
    expect(readFileSync(join(clone, 'DECISIONS.md'), 'utf8')).toContain('Use GraphQL')
    // The app saw no crash's leftovers in the export: its members are still idle and reachable.
    expect((await app.call('workspaces.list', {})).length).toBe(3)
    timed('export and import', t)
  }, 120_000)

  it('says once at start that commands will run without a sandbox', async () => {
    const off = await serve(inst, join(base, 'data-no-sandbox'), { CONCORD_SANDBOX: 'off' })
    try {
      // The notice follows the sandbox check, which is asynchronous: wait for the line on stderr.
      while (!off.stderr().includes('without a sandbox')) await new Promise((ok) => off.child.stderr?.once('data', ok))
      expect(off.stderr().match(/without a sandbox/g)).toHaveLength(1)
      expect(off.stderr()).toContain('CONCORD_SANDBOX=off')
    } finally {
      await off.stop()
    }
  }, 60_000)

  it('the browser UI served from the installed package opens in Chromium', async () => {
    const t = Date.now()
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(app.url)
      await page.locator('[data-testid="member-item"], [data-testid="welcome"]').first().waitFor({ timeout: 60_000 })
      expect(await page.title()).toBe('Concord')
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
    timed('browser', t)
  }, 120_000)
})
