/**
 * npm run eval [-- --seed N --runs K --variants V --code-variants C|none --arm concord|broadcast|chat|careful --json --out DIR]
 *              [--provider openai|anthropic|openai-compatible --model M [--base-url URL] [--max-calls N]]
 *              [--agent claude-code|codex|gemini [--agent-arg A]... [--step-timeout S] [--max-calls N]]
 *
 * Runs the Web Search scenario and V generated variants (default 50) under the four coordination arms, K runs
 * each (default 3), and the code scenarios (the search one and C generated, default 2; `none` leaves them out: they
 * run real git and, for Concord, the real merge queue, so they are the slow part), prints the tables (or, with --json, the figures as JSON on stdout) and writes
 * DIR/eval-seed<N>.json and .svg (default DIR: eval/results, not committed). Deterministic for a seed, except
 * wallMs. With --provider the members' choices are a real model's (eval/model.ts); with --agent a real coding
 * agent's, driven over ACP with one MCP tool `act` (eval/agent.ts). The README's section "The experiment" says what each figure means.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ARMS, type ArmName } from './arms/arm'
import type { ProviderKind } from '../electron/main/runtime/providers'
import { runExperiment } from './experiment'
import { AGENTS, AgentDriver, checkAgentEnv, DEFAULT_STEP_TIMEOUT_MS, type EvalAgent } from './agent'
import { DEFAULT_MAX_CALLS, ModelConfigError, ModelDriver, modelProvider, PROVIDERS, type Driver } from './model'
import { codeTable, svg, table, tokenSources } from './results'

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    variants: { type: 'string', default: '50' },
    'code-variants': { type: 'string', default: '2' },
    arm: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
    out: { type: 'string', default: join(import.meta.dirname, 'results') },
    provider: { type: 'string' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    'max-calls': { type: 'string' },
    agent: { type: 'string' },
    'agent-arg': { type: 'string', multiple: true },
    'step-timeout': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})

const fail = (message: string, code = 2): never => {
  process.stderr.write(`npm run eval: ${message}\n`)
  process.exit(code)
}

if (values.help) {
  process.stdout.write(
    'npm run eval [-- --seed N --runs K --variants V --code-variants C|none --arm concord|broadcast|chat|careful --json --out DIR]\n' +
      '             [--provider openai|anthropic|openai-compatible --model M [--base-url URL] [--max-calls N]]\n' +
      '             [--agent claude-code|codex|gemini [--agent-arg A]... [--step-timeout S] [--max-calls N]]\n' +
      'Keys from the environment: OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY (optional);\n' +
      'for --agent: ANTHROPIC_API_KEY [ANTHROPIC_BASE_URL] (claude-code), OPENAI_API_KEY (codex), GEMINI_API_KEY [GOOGLE_GEMINI_BASE_URL] (gemini).\n',
  )
  process.exit(0)
}
const int = (name: string, v: string, min: number) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer of at least ${min}, not '${v}'`)
  return n
}
if (values.agent && values.provider)
  fail('--agent and --provider exclude each other: the members are either a coding agent or a model')
if (!values.agent && (values['agent-arg'] || values['step-timeout']))
  fail('--agent-arg and --step-timeout need --agent claude-code|codex|gemini')
if (values.model && !values.provider) fail('--model needs --provider openai|anthropic|openai-compatible')
let model: (() => Driver) | undefined
let maxCalls: number | undefined
if (values.provider) {
  const kind = values.provider as ProviderKind
  if (!PROVIDERS.includes(kind)) fail(`--provider must be one of ${PROVIDERS.join(', ')}, not '${values.provider}'`)
  try {
    const provider = modelProvider({ kind, model: values.model ?? '', baseURL: values['base-url'] })
    maxCalls = values['max-calls'] ? int('max-calls', values['max-calls'], 1) : DEFAULT_MAX_CALLS
    const budget = maxCalls
    model = () => new ModelDriver(provider, budget)
  } catch (err) {
    if (err instanceof ModelConfigError) fail(err.message)
    throw err
  }
}
if (values.agent) {
  const agent = values.agent as EvalAgent
  if (!AGENTS.includes(agent)) fail(`--agent must be one of ${AGENTS.join(', ')}, not '${values.agent}'`)
  try {
    checkAgentEnv(agent)
  } catch (err) {
    if (err instanceof ModelConfigError) fail(err.message)
    throw err
  }
  maxCalls = values['max-calls'] ? int('max-calls', values['max-calls'], 1) : DEFAULT_MAX_CALLS
  const budget = maxCalls
  const stepTimeoutMs = values['step-timeout']
    ? int('step-timeout', values['step-timeout'], 1) * 1000
    : DEFAULT_STEP_TIMEOUT_MS
  const args = values['agent-arg'] ?? []
  model = () => new AgentDriver({ agent, args, maxCalls: budget, stepTimeoutMs })
  // The agents run in their own process groups: an interrupted eval still ends them (eval/agent.ts, on exit).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(sig === 'SIGINT' ? 130 : 143))
}
const seed = int('seed', values.seed, 0)
const runs = int('runs', values.runs, 1)
const variants = int('variants', values.variants, 0)
const codeVariants = values['code-variants'] === 'none' ? -1 : int('code-variants', values['code-variants'], 0)
const arms = (values.arm ?? ARMS).flatMap((a) => a.split(',')) as ArmName[]
for (const a of arms) if (!ARMS.includes(a)) fail(`--arm must be one of ${ARMS.join(', ')}, not '${a}'`)

const started = performance.now()
const { results, outcomes, codeOutcomes } = await runExperiment({
  seed,
  runs,
  variants,
  codeVariants,
  arms,
  model,
  onScenario: (done, total) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${done}/${total} scenario runs`)
  },
})
if (process.stderr.isTTY) process.stderr.write('\n')

const out = resolve(values.out)
mkdirSync(out, { recursive: true })
const base = join(out, `eval-seed${seed}`)
writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n')
writeFileSync(`${base}.svg`, svg(results))

if (values.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n')
else {
  process.stdout.write(
    `Seed ${seed}, ${runs} run(s) of ${results.scenarios} scenarios (Web Search + ${variants} variants), mean / worst per scenario:\n\n`,
  )
  process.stdout.write(table(results) + '\n\n')
  process.stdout.write(`coordinationTokens by source, mean per scenario: ${tokenSources(outcomes)}\n\n`)
  if (results.code)
    process.stdout.write(
      `Code scenarios (${results.code.scenarios}: tasks in parallel on one repository, merged in turn), mean / worst per scenario:\n\n${codeTable(results)}\n\n`,
    )
  process.stdout.write(`Written: ${base}.json, ${base}.svg (${((performance.now() - started) / 1000).toFixed(1)} s)\n`)
}
if (model) {
  // The model's own cost, from the provider's reported usage (null where it reported none), and its wasted steps.
  for (const [arm, list] of outcomes) {
    const u = list.map((o) => o.model!)
    const sum = (f: (m: (typeof u)[number]) => number | null) =>
      u.some((m) => f(m) === null) ? 'not reported' : String(u.reduce((a, m) => a + f(m)!, 0))
    const why: Record<string, number> = {}
    for (const m of u) for (const [k, v] of Object.entries(m.wasted)) why[k] = (why[k] ?? 0) + v
    process.stderr.write(
      `${arm}: ${u.reduce((a, m) => a + m.calls, 0)} ${values.agent ? `${values.agent} steps (ACP prompts)` : 'model calls'}, ${u.reduce((a, m) => a + m.wastedSteps, 0)} wasted steps${
        Object.keys(why).length
          ? ` (${Object.entries(why)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')})`
          : ''
      }, ` +
        `${values.agent ? 'agent' : 'provider'}-reported tokens in ${sum((m) => m.inputTokens)} / out ${sum((m) => m.outputTokens)}\n`,
    )
  }
}
// A scenario the human's procedure could not finish is a fault of the experiment, not a figure: say so.
for (const [arm, list] of codeOutcomes) {
  const stuck = list.filter((o) => o.unfinished > 0)
  if (stuck.length)
    process.stderr.write(`warning: ${arm}: merges never landed in ${stuck.map((o) => o.scenario).join(', ')}\n`)
}
for (const [arm, list] of outcomes) {
  const stuck = list.filter((o) => o.unfinished > 0)
  if (stuck.length)
    process.stderr.write(
      `warning: ${arm}: ${stuck.length} scenario run(s) left tasks unfinished (${stuck
        .slice(0, 5)
        .map((o) => `${o.scenario} run ${o.run + 1}`)
        .join(', ')})\n`,
    )
}
