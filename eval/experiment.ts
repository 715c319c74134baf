/** The experiment as a function: every scenario under every arm, every run; the CLI (run.ts) and the tests call it. */
import { ARMS, type ArmName, type Sabotage } from './arms/arm'
import { codeScenarios } from './code/scenarios'
import { simulateCode, type CodeOptions, type CodeOutcome } from './code/simulate'
import type { Driver } from './model'
import { scenarios } from './scenarios'
import { simulate, type Outcome } from './simulate'
import { summarize, summarizeCode, type Results } from './results'

export interface ExperimentOptions {
  seed: number
  runs: number
  /** Generated variants besides the Web Search scenario. */
  variants: number
  arms?: ArmName[]
  sabotage?: Sabotage
  /** Model-driven members: a new driver per scenario run (eval/model.ts). */
  model?: () => Driver
  /** Generated code scenarios besides the search one; negative leaves the code scenarios out (the default). */
  codeVariants?: number
  /** Test-only settings of the code scenarios (Concord's merge mode). */
  code?: CodeOptions
  onScenario?: (done: number, total: number) => void
}

export interface Experiment {
  results: Results
  /** Per arm, one outcome per run and scenario, in order (run-major). */
  outcomes: Map<ArmName, (Outcome & { scenario: string; run: number })[]>
  /** Per arm, one outcome per code scenario (they draw nothing per run: each runs once). */
  codeOutcomes: Map<ArmName, (CodeOutcome & { scenario: string })[]>
}

export async function runExperiment(o: ExperimentOptions): Promise<Experiment> {
  const list = scenarios(o.seed, o.variants)
  const arms = o.arms ?? ARMS
  const outcomes = new Map(arms.map((a) => [a, [] as (Outcome & { scenario: string; run: number })[]]))
  const code = codeScenarios(o.seed, o.codeVariants ?? -1)
  const codeOutcomes = new Map(arms.map((a) => [a, [] as (CodeOutcome & { scenario: string })[]]))
  const total = o.runs * list.length + code.length
  let done = 0
  for (let run = 0; run < o.runs; run++) {
    for (const s of list) {
      for (const arm of arms)
        outcomes.get(arm)!.push({
          ...(await simulate(s, arm, { seed: o.seed, run, sabotage: o.sabotage, model: o.model })),
          scenario: s.name,
          run,
        })
      o.onScenario?.(++done, total)
    }
  }
  for (const s of code) {
    for (const arm of arms) codeOutcomes.get(arm)!.push({ ...(await simulateCode(s, arm, o.code)), scenario: s.name })
    o.onScenario?.(++done, total)
  }
  const results = summarize(o.seed, o.runs, list.length, outcomes)
  if (code.length) results.code = summarizeCode(code.length, codeOutcomes)
  return { results, outcomes, codeOutcomes }
}
