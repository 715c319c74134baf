/**
 * Agent-driven members (`npm run eval -- --agent claude-code|codex|gemini [--agent-arg A]… [--step-timeout S]`): the
 * member's choice at each step is made by the real coding-agent CLI, driven over ACP with Concord's own
 * `AgentProcess` (runtime/acp/agent-process.ts) and the agent's preset (presets.ts: its program, from the project's
 * node_modules first, then PATH). One agent process per member, kept for the scenario run: `session/new` once,
 * `session/prompt` per step. The prompt is the model member's (eval/model.ts: the member's context in its arm, its
 * state as JSON, possibleNow). The agent gets ONE tool, the MCP tool `act` with the model member's schema, served
 * by eval/act-mcp.mjs (a stdio MCP server the agent starts), which posts each call to this process on 127.0.0.1
 * under a per-member secret path. The first `act` call of a step is the member's action; a step without one (or
 * with bad arguments, or an action not possible now) is a wasted step, exactly as for --provider. A step that does
 * not end within the step timeout is cancelled, its agent stopped (the next step starts a new one) and, without an
 * `act` call, wasted.
 *
 * Not in Concord's OS sandbox: the eval's agents get only the `act` tool (every other permission request is
 * refused), in an empty temporary folder with a temporary home. Keys and endpoints come from the environment as
 * each agent's users set them (ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OPENAI_API_KEY with `--agent-arg -c
 * --agent-arg model_providers…`, GEMINI_API_KEY / GOOGLE_GEMINI_BASE_URL); only those families of variables
 * reach the agent.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerStdio, RequestPermissionRequest } from '@agentclientprotocol/sdk'
import { AgentProcess, AgentStartError } from '../electron/main/runtime/acp/agent-process'
import { pickOption } from '../electron/main/runtime/acp/acp-updates'
import { agentCommand, agentPresets, notInstalledText } from '../electron/main/runtime/acp/presets'
import { ACT, DEFAULT_MAX_CALLS, ModelConfigError, type Driver, type ModelUsage } from './model'

export const AGENTS = ['claude-code', 'codex', 'gemini'] as const
export type EvalAgent = (typeof AGENTS)[number]
/** A step (one ACP prompt turn) that takes longer is cancelled and its agent stopped. */
export const DEFAULT_STEP_TIMEOUT_MS = 120_000
const START_TIMEOUT_MS = 90_000

export interface AgentOptions {
  agent: EvalAgent
  /** Extra arguments for the agent's program (e.g. Codex's `-c model_providers…`). */
  args?: string[]
  /** Default process.env; only the agent's own families of variables are passed on. */
  env?: NodeJS.ProcessEnv
  maxCalls?: number
  stepTimeoutMs?: number
}

/** The variables an agent's users set for it (keys, endpoints, its own switches); nothing else of the eval's environment. */
const PASSED: Record<EvalAgent, RegExp> = {
  'claude-code': /^(ANTHROPIC_|CLAUDE_CODE_|CLAUDE_|DISABLE_|ENABLE_TOOL_SEARCH$|IS_SANDBOX$|API_TIMEOUT_MS$)/,
  codex: /^(OPENAI_|CODEX_|RUST_LOG$)/,
  gemini: /^(GEMINI_|GOOGLE_)/,
}
const BASE = ['PATH', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'SYSTEMROOT']

/** The first key variable each agent needs, checked before anything runs (its own login is not used: the home is temporary). */
const KEYS: Record<EvalAgent, string[]> = {
  'claude-code': ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
  codex: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
}

/** Agents running now, in every driver: ended (their whole process group) if the eval exits before closing them. */
const live = new Set<AgentProcess>()
let exitHook = false
function track(p: AgentProcess): void {
  live.add(p)
  void p.exited.then(() => live.delete(p))
  if (exitHook) return
  exitHook = true
  process.on('exit', () => {
    for (const a of live)
      try {
        if (a.proc.pid) process.kill(-a.proc.pid, 'SIGKILL')
      } catch {
        // already gone
      }
  })
}

interface Slot {
  token: string
  proc: AgentProcess | null
  sessionId: string | null
  /** The step open now: the first act call's arguments, and how many calls came. */
  step: { args: string | null; calls: number } | null
}

/** Coding agents as the members of one scenario run: one process per member, the budget and counters of ModelDriver. */
export class AgentDriver implements Driver {
  readonly usage: ModelUsage = { calls: 0, wastedSteps: 0, inputTokens: 0, outputTokens: 0, wasted: {} }
  /** Agent processes started (one per member, unless one had to be stopped). */
  started = 0
  private sawUsage = false
  private readonly slots = new Map<number, Slot>()
  /** Every agent this driver started, the stopped ones included (their children may outlive them). */
  private readonly all: AgentProcess[] = []
  private readonly byToken = new Map<string, Slot>()
  /** The temporary folder the agents run in (each member's home and working folder), removed by close(). */
  readonly dir: string
  private server: Promise<{ server: http.Server; url: string }> | null = null
  private readonly env: NodeJS.ProcessEnv
  private readonly maxCalls: number
  private readonly stepTimeoutMs: number

  constructor(private readonly o: AgentOptions) {
    this.env = o.env ?? process.env
    this.maxCalls = o.maxCalls ?? DEFAULT_MAX_CALLS
    this.stepTimeoutMs = o.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS
    this.dir = mkdtempSync(join(tmpdir(), 'concord-eval-agent-'))
  }

  get exhausted(): boolean {
    return this.usage.calls >= this.maxCalls
  }

  waste(why: string): void {
    this.usage.wastedSteps++
    this.usage.wasted[why] = (this.usage.wasted[why] ?? 0) + 1
  }

  report(): ModelUsage {
    return this.sawUsage
      ? { ...this.usage, wasted: { ...this.usage.wasted } }
      : { ...this.usage, inputTokens: null, outputTokens: null, wasted: { ...this.usage.wasted } }
  }

  /** The local endpoint the act tool posts to. */
  private listen(): Promise<{ server: http.Server; url: string }> {
    return (this.server ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          const slot = this.byToken.get((req.url ?? '').replace(/^\/act\//, ''))
          const answer = (status: number, text: string) =>
            res.writeHead(status, { 'content-type': 'text/plain' }).end(text)
          if (req.method !== 'POST' || !slot) return answer(404, 'unknown member')
          if (!slot.step) return answer(200, 'No step of yours is open now; this call was ignored.')
          slot.step.calls++
          if (slot.step.args !== null)
            return answer(200, 'You already acted this step; this call was ignored. End your turn.')
          slot.step.args = Buffer.concat(chunks).toString('utf8')
          answer(200, 'Recorded as your action for this step. End your turn now.')
        })
      })
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () =>
        resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
      )
    }))
  }

  private async start(member: number, slot: Slot): Promise<void> {
    const { url } = await this.listen()
    const preset = agentPresets[this.o.agent]
    const home = join(this.dir, `m${member}`)
    const cwd = join(home, 'work')
    mkdirSync(cwd, { recursive: true })
    const vars: Record<string, string> = {}
    for (const k of BASE) if (this.env[k] !== undefined) vars[k] = this.env[k]!
    for (const v of preset.homeVariables) {
      const d = v === 'HOME' ? home : join(home, `.${v.toLowerCase()}`)
      mkdirSync(d, { recursive: true })
      vars[v] = d
    }
    vars.TMPDIR = join(home, 'tmp')
    mkdirSync(vars.TMPDIR, { recursive: true })
    Object.assign(vars, preset.env)
    for (const [k, v] of Object.entries(this.env)) if (v !== undefined && PASSED[this.o.agent].test(k)) vars[k] = v
    const mcp: McpServerStdio = {
      name: 'act',
      command: process.execPath,
      args: [join(import.meta.dirname, 'act-mcp.mjs')],
      env: [
        { name: 'EVAL_ACT_URL', value: `${url}/act/${slot.token}` },
        { name: 'EVAL_ACT_SCHEMA', value: JSON.stringify(ACT) },
      ],
    }
    // Codex takes its MCP servers (approved without asking) from its configuration; the others from session/new.
    const viaConfig = preset.mcpArgs?.(mcp)
    const fixed = [
      ...(preset.sandboxArgs?.({ concordSandbox: false, readOnly: true }) ?? []),
      ...(viaConfig?.args ?? []),
    ]
    if (viaConfig) Object.assign(vars, viaConfig.env)
    const { command, args } = agentCommand(
      { agent: this.o.agent, agent_command: null, agent_args: JSON.stringify(this.o.args ?? []) },
      fixed,
    )
    const sdk = await import('@agentclientprotocol/sdk')
    const proc = new AgentProcess({ command, args, env: vars, cwd, fingerprint: '' }, sdk)
    this.started++
    this.all.push(proc)
    track(proc)
    try {
      await proc.initialize(START_TIMEOUT_MS, preset.label)
    } catch (err) {
      if (err instanceof AgentStartError && err.code === 'agent_missing')
        throw new ModelConfigError(notInstalledText(this.o.agent, command))
      throw err
    }
    // Claude Code runs the act tool without a permission request when told so (as Concord does for its own tools).
    const meta =
      this.o.agent === 'claude-code' ? { _meta: { claudeCode: { options: { allowedTools: ['mcp__act__act'] } } } } : {}
    const session = await proc.conn.agent.request('session/new', { cwd, mcpServers: viaConfig ? [] : [mcp], ...meta })
    proc.attach(session.sessionId, { update: () => {}, permission: async (r) => pickOption(r.options, isAct(r)) })
    slot.proc = proc
    slot.sessionId = session.sessionId
  }

  async ask(system: string, user: string, member: number): Promise<{ args: string } | { wasted: string }> {
    this.usage.calls++
    let slot = this.slots.get(member)
    if (!slot) {
      slot = { token: randomBytes(16).toString('hex'), proc: null, sessionId: null, step: null }
      this.slots.set(member, slot)
      this.byToken.set(slot.token, slot)
    }
    if (!slot.proc || slot.proc.dead) await this.start(member, slot)
    const proc = slot.proc!
    const sessionId = slot.sessionId!
    const step = (slot.step = { args: null as string | null, calls: 0 })
    const text = `${system}\n\nYour only tool is \`act\` (MCP server "act"): call it exactly once, then end your turn.\n\n${user}`
    let timer: NodeJS.Timeout | undefined
    try {
      const res = await Promise.race([
        proc.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }).then(
          (r) => ({ done: r as { usage?: { inputTokens?: number; outputTokens?: number } | null } }),
          (err: unknown) => ({ failed: err instanceof Error ? err.message : String(err) }),
        ),
        proc.exited.then((why) => ({ crashed: why })),
        new Promise<{ timedOut: true }>(
          (resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), this.stepTimeoutMs)),
        ),
      ])
      if ('timedOut' in res || 'crashed' in res) {
        // A stuck or dead agent is stopped; the next step of this member starts a new one.
        if ('timedOut' in res) void proc.conn.agent.notify('session/cancel', { sessionId }).catch(() => {})
        proc.kill()
        slot.proc = null
        if (step.args === null) return { wasted: 'timedOut' in res ? 'step_timeout' : 'agent_crashed' }
      } else if ('done' in res && res.done.usage && typeof res.done.usage.inputTokens === 'number') {
        this.sawUsage = true
        this.usage.inputTokens! += res.done.usage.inputTokens
        this.usage.outputTokens! += res.done.usage.outputTokens ?? 0
      } else if ('failed' in res && step.args === null) return { wasted: 'agent_error' }
      return step.args === null ? { wasted: 'no_tool_call' } : { args: step.args }
    } finally {
      clearTimeout(timer)
      slot.step = null
    }
  }

  async close(): Promise<void> {
    for (const p of this.all) if (!p.dead) p.kill()
    await Promise.all(this.all.map((p) => p.exited))
    // The agent's own children (Claude Code's CLI, the act server) are in its process group: end what is left of it.
    for (const p of this.all)
      try {
        if (p.proc.pid) process.kill(-p.proc.pid, 'SIGKILL')
      } catch {
        // the group is gone
      }
    if (this.server) {
      const { server } = await this.server
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** The act tool's own permission request (an agent that asks anyway): allowed; anything else the agent wants to run: refused. */
function isAct(r: RequestPermissionRequest): boolean {
  const title = r.toolCall.title ?? ''
  return /(^|[^a-z])act([^a-z]|$)/i.test(title) && !/\b(bash|write|edit|read|shell|fetch)\b/i.test(title)
}

/** The key the agent needs, from the environment (never printed), or a clear error naming the variables. */
export function checkAgentEnv(agent: EvalAgent, env: NodeJS.ProcessEnv = process.env): void {
  if (!KEYS[agent].some((k) => env[k]?.trim()))
    throw new ModelConfigError(`--agent ${agent} needs ${KEYS[agent].join(' or ')} in the environment`)
}
