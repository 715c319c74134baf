/**
 * npm run eval [-- --seed N --runs K --variants V --arm concord|broadcast|chat --json --out DIR]
 *
 * Runs the Web Search scenario and V generated variants (default 50) under the three coordination arms, K runs
 * each (default 3), prints one table (or, with --json, the figures as JSON on stdout) and writes
 * DIR/eval-seed<N>.json and .svg (default DIR: eval/results, not committed). Deterministic for a seed, except
 * wallMs. The README's section "The experiment" says what each figure means.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ARMS, type ArmName } from './arms/arm'
import { runExperiment } from './experiment'
import { svg, table } from './results'

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    variants: { type: 'string', default: '50' },
    arm: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
    out: { type: 'string', default: join(import.meta.dirname, 'results') },
    provider: { type: 'string' },
    model: { type: 'string' },
    agent: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})

const fail = (message: string, code = 2): never => {
  process.stderr.write(`npm run eval: ${message}\n`)
  process.exit(code)
}

if (values.help) {
  process.stdout.write('npm run eval [-- --seed N --runs K --variants V --arm concord|broadcast|chat --json --out DIR]\n')
  process.exit(0)
}
if (values.provider || values.agent || values.model) {
  // Never faked: the scripted members are the only ones this build runs.
  fail(
    `${values.agent ? `--agent ${values.agent}` : `--provider ${values.provider ?? '?'}${values.model ? ` --model ${values.model}` : ''}`} would run the members on a real ` +
      `${values.agent ? 'coding agent (its CLI installed and signed in)' : 'model (an API key in the environment)'}; that mode is not implemented in this build, ` +
      'so nothing was run. The scripted members (eval/member.ts) are the ones measured here: run without --provider/--model/--agent.',
  )
}
const int = (name: string, v: string, min: number) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer of at least ${min}, not '${v}'`)
  return n
}
const seed = int('seed', values.seed, 0)
const runs = int('runs', values.runs, 1)
const variants = int('variants', values.variants, 0)
const arms = (values.arm ?? ARMS).flatMap((a) => a.split(',')) as ArmName[]
for (const a of arms) if (!ARMS.includes(a)) fail(`--arm must be one of ${ARMS.join(', ')}, not '${a}'`)

const started = performance.now()
const { results, outcomes } = await runExperiment({
  seed,
  runs,
  variants,
  arms,
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
  process.stdout.write(`Seed ${seed}, ${runs} run(s) of ${results.scenarios} scenarios (Web Search + ${variants} variants), mean / worst per scenario:\n\n`)
  process.stdout.write(table(results) + '\n\n')
  process.stdout.write(`Written: ${base}.json, ${base}.svg (${((performance.now() - started) / 1000).toFixed(1)} s)\n`)
}
// A scenario the human's procedure could not finish is a fault of the experiment, not a figure: say so.
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
