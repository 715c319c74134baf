/**
 * `npm run eval -- --agent claude-code`: the members are the real Claude Code (its ACP adapter in node_modules),
 * each in its own process across the steps, offline against the scripted model server, acting only through the
 * eval's MCP tool `act`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AgentDriver, type AgentOptions } from '../../eval/agent'
import { runExperiment } from '../../eval/experiment'
import { claudeOffline, codexArgs } from '../fixtures/agents'
import { actArguments, competentAction, type PromptState } from '../fixtures/competent-member'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'

const SEED = 3

const offline = (server: ModelServer) => ({
  PATH: process.env.PATH,
  ANTHROPIC_API_KEY: 'sk-ant-any',
  ...claudeOffline(server),
})

/** The outcome of one run of Web Search in Concord's arm, its members played by the agent (its drivers go into `drivers`). */
async function playWebSearch(drivers: AgentDriver[], agent: AgentOptions) {
  const e = await runExperiment({
    seed: SEED,
    runs: 1,
    variants: 0,
    arms: ['concord'],
    model: () => {
      const d = new AgentDriver(agent)
      drivers.push(d)
      return d
    },
  })
  return e.outcomes.get('concord')![0]
}

type Block = { type: string; text?: string }
/** The newest input of a request, whatever the wire format: Anthropic's last user message, or the Responses API's last input item. */
const lastInput = (req: RecordedRequest): Block[] => {
  if (req.format === 'gemini') {
    const contents = req.body.contents as { role?: string; parts: { text?: string; functionResponse?: unknown }[] }[]
    const last = contents.at(-1)!
    if (last.parts.some((p) => p.functionResponse)) return [{ type: 'tool_result' }]
    return last.parts.map((p) => ({ type: 'text', text: p.text ?? '' }))
  }
  if (req.format === 'responses') {
    const items = req.body.input as { type?: string; role?: string; content?: string | Block[] }[]
    const last = items.at(-1)!
    if (last.type === 'function_call_output') return [{ type: 'tool_result' }]
    const user = items.filter((m) => m.role === 'user').at(-1)!
    return typeof user.content === 'string' ? [{ type: 'text', text: user.content }] : user.content!
  }
  const last = (req.body.messages as { role: string; content: string | Block[] }[])
    .filter((m) => m.role === 'user')
    .at(-1)!
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content
}
const withTools = (r: RecordedRequest) =>
  Array.isArray(r.body?.tools) && r.body.tools.length > 0 && !r.path.endsWith(':generateContent')
const stepPrompt = (r: RecordedRequest) => withTools(r) && !lastInput(r).some((b) => b.type === 'tool_result')

/**
 * The scripted model behind Claude Code: on a step's prompt, one call of the tool Claude offers for the eval's `act`;
 * on that call's result, a short text that ends the turn. Side requests without tools get a text.
 */
function competent(toolNames: Set<string>) {
  return (req: RecordedRequest): ScriptedReply => {
    // Gemini CLI's model router asks (not streamed) which model to use.
    if (req.path.endsWith(':generateContent')) return { text: '{"reasoning":"simple","model_choice":"flash"}' }
    if (!withTools(req)) return { text: 'ok' }
    for (const t of req.body.tools as { name?: string; type?: string; functionDeclarations?: { name: string }[] }[])
      for (const n of t.functionDeclarations?.map((f) => f.name) ?? [t.name ?? t.type ?? '?']) toolNames.add(n)
    const blocks = lastInput(req)
    if (blocks.some((b) => b.type === 'tool_result')) return { text: 'Acted.' }
    const json = /```json\n([\s\S]*?)\n```/.exec(blocks.map((b) => b.text ?? '').join('\n'))
    if (!json) return { text: 'No state in this prompt.' }
    const a = competentAction(JSON.parse(json[1]!) as PromptState)
    const args = actArguments(a)
    // Claude Code names an MCP tool mcp__<server>__<tool>, Gemini CLI mcp_<server>_<tool>; Codex offers a server's tools as the namespace mcp__<server>.
    const call =
      req.format === 'responses'
        ? { name: 'act', namespace: 'mcp__act', arguments: args }
        : { name: req.format === 'gemini' ? 'mcp_act_act' : 'mcp__act__act', arguments: args }
    return { toolCalls: [call] }
  }
}

/** The live processes whose working folder is under `dir`, or that run the eval's act server. */
const ACT_MCP = join(import.meta.dirname, '..', '..', 'eval', 'act-mcp.mjs')

function processesIn(dir: string): string[] {
  const out: string[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ')
      // A process whose memory is already released (no command line) is one being killed, not one left running.
      if (!cmd) continue
      // This checkout's act server only: another test run on the machine (two at once) has its own, not ours to count.
      if (readlinkSync(`/proc/${d}/cwd`).startsWith(dir) || cmd.includes(ACT_MCP)) out.push(cmd)
    } catch {
      // gone meanwhile
    }
  }
  return out
}

describe('npm run eval --agent claude-code (the real Claude Code over ACP, offline)', () => {
  it('a competent model behind Claude Code plays Web Search through the act tool; Concord misses nothing, no step wasted', async () => {
    const tools = new Set<string>()
    const server = await startModelServer({ unscripted: competent(tools) })
    const drivers: AgentDriver[] = []
    try {
      const o = await playWebSearch(drivers, {
        agent: 'claude-code',
        env: offline(server),
        maxCalls: 200,
        stepTimeoutMs: 60_000,
      })
      expect(o).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, unfinished: 0 })
      expect(o!.model!.calls).toBeGreaterThan(5)
      expect(o!.model!.wastedSteps).toBe(0)
      // Claude Code reports its usage over ACP (the scripted server's default: 10 input tokens per request at least).
      expect(o!.model!.inputTokens).toBeGreaterThanOrEqual(10 * o!.model!.calls)
      // Claude Code offered the eval's tool under its MCP name, and the prompts carried Concord's brief.
      expect(tools).toContain('mcp__act__act')
      const prompts = server.requests.filter(withTools).map((r) => JSON.stringify(lastInput(r)))
      expect(prompts.some((p) => p.includes('# Brief (rebuilt from the Concord harness'))).toBe(true)
      // The change reached them as Concord delivers it: the new text in the brief, and an automatic turn's ask.
      expect(prompts.some((p) => p.includes('returns the partial results'))).toBe(true)
      expect(prompts.some((p) => /needs (adjustment|re-verification)/.test(p))).toBe(true)
      // One agent process per member, kept across its steps: the Web Search team has 3 members.
      expect(drivers).toHaveLength(1)
      expect(drivers[0]!.started).toBe(3)
      expect(server.requests.filter(stepPrompt).length).toBe(o!.model!.calls)
    } finally {
      await server.close()
    }
    // The agents and their act servers are gone with the run, and so is their folder.
    expect(processesIn(drivers[0]!.dir)).toEqual([])
    expect(existsSync(drivers[0]!.dir)).toBe(false)
  }, 240_000)

  it('the CLI: npm run eval -- --agent claude-code --json prints the figures, keys and endpoint from the environment', async () => {
    const server = await startModelServer({ unscripted: competent(new Set()) })
    const out = mkdtempSync(join(tmpdir(), 'eval-agent-cli-'))
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'eval/run.ts',
          '--agent',
          'claude-code',
          '--variants',
          '0',
          '--runs',
          '1',
          '--arm',
          'concord',
          '--json',
          '--out',
          out,
        ],
        {
          env: offline(server),
        },
      )
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
      expect(code, stderr).toBe(0)
      const results = JSON.parse(stdout)
      expect(results).toMatchObject({
        seed: 1,
        runs: 1,
        scenarios: 1,
        arms: { concord: { affectedMissed: 0, staleEvidenceUsed: 0 } },
      })
      expect(stderr).toMatch(/concord: \d+ claude-code steps \(ACP prompts\), 0 wasted steps/)
      expect(readdirSync(out).sort()).toEqual(['eval-seed1.json', 'eval-seed1.svg'])
    } finally {
      rmSync(out, { recursive: true, force: true })
      await server.close()
    }
  }, 180_000)

  it('a model that never calls the tool wastes every step, and the run ends (members give up) with no hang', async () => {
    const server = await startModelServer({
      unscripted: (req) => ({ text: withTools(req) ? 'I would rather chat about it.' : 'ok' }),
    })
    try {
      const o = await playWebSearch([], {
        agent: 'claude-code',
        env: offline(server),
        maxCalls: 8,
        stepTimeoutMs: 60_000,
      })
      expect(o!.model!.calls).toBeGreaterThan(0)
      expect(o!.model!.calls).toBeLessThanOrEqual(8)
      expect(o!.model!.wastedSteps).toBe(o!.model!.calls)
      expect(o!.model!.wasted).toEqual({ no_tool_call: o!.model!.calls })
      expect(o!.unfinished).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  }, 180_000)

  it('a step whose model never finishes is cancelled at the step timeout: wasted, its agent stopped and started again for the next step', async () => {
    const server = await startModelServer({
      unscripted: (req) => (withTools(req) ? { text: 'Thinking', hang: true } : { text: 'ok' }),
    })
    const drivers: AgentDriver[] = []
    try {
      const o = await playWebSearch(drivers, {
        agent: 'claude-code',
        env: offline(server),
        maxCalls: 2,
        stepTimeoutMs: 3000,
      })
      expect(o!.model!.calls).toBe(2)
      expect(o!.model!.wasted).toEqual({ step_timeout: 2 })
      expect(drivers[0]!.started).toBe(2)
    } finally {
      await server.close()
    }
    expect(processesIn(drivers[0]!.dir)).toEqual([])
  }, 120_000)
})

describe('npm run eval --agent codex (the real Codex over ACP, offline)', () => {
  it('a competent model behind Codex plays Web Search through the act tool; Concord misses nothing, no step wasted', async () => {
    const tools = new Set<string>()
    const server = await startModelServer({ unscripted: competent(tools) })
    const drivers: AgentDriver[] = []
    try {
      // As a Codex user points it at their own endpoint: --agent-arg -c --agent-arg model_providers.… and OPENAI_API_KEY.
      const o = await playWebSearch(drivers, {
        agent: 'codex',
        args: codexArgs(server),
        env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-any' },
        maxCalls: 200,
        stepTimeoutMs: 60_000,
      })
      expect(o).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, unfinished: 0 })
      expect(o!.model!.calls).toBeGreaterThan(5)
      expect(o!.model!.wastedSteps).toBe(0)
      expect(drivers[0]!.started).toBe(3)
      // Codex reports no token counts over ACP: "not reported", never 0.
      expect(o!.model!.inputTokens).toBeNull()
      expect(server.requests.every((r) => r.format === 'responses')).toBe(true)
      expect(server.requests.filter(stepPrompt).length).toBe(o!.model!.calls)
    } finally {
      await server.close()
    }
    expect(processesIn(drivers[0]!.dir)).toEqual([])
    expect(existsSync(drivers[0]!.dir)).toBe(false)
  }, 240_000)
})

describe('npm run eval --agent gemini (the real Gemini CLI over ACP, offline)', () => {
  it('a competent model behind Gemini CLI plays Web Search through the act tool; Concord misses nothing, no step wasted', async () => {
    const tools = new Set<string>()
    const server = await startModelServer({ unscripted: competent(tools) })
    const drivers: AgentDriver[] = []
    try {
      const o = await playWebSearch(drivers, {
        agent: 'gemini',
        env: { PATH: process.env.PATH, GEMINI_API_KEY: 'any', GOOGLE_GEMINI_BASE_URL: server.url },
        maxCalls: 200,
        stepTimeoutMs: 60_000,
      })
      expect(tools).toContain('mcp_act_act')
      // Gemini CLI reports no usage over ACP.
      expect(o!.model!.inputTokens).toBeNull()
      expect(o).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, unfinished: 0 })
      expect(o!.model!.calls).toBeGreaterThan(5)
      expect(o!.model!.wastedSteps).toBe(0)
      expect(drivers[0]!.started).toBe(3)
    } finally {
      await server.close()
    }
    expect(processesIn(drivers[0]!.dir)).toEqual([])
  }, 240_000)
})
