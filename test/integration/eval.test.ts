/**
 * npm run eval (issue 24): the experiment's own guarantees, on a few variants. Concord's arm — the real harness,
 * propagation, AutoTurns and acceptance gate — never accepts a task that missed a change nor evidence that no
 * longer holds; breaking propagation or the gate shows up in those figures; the baselines' figures are measured
 * (breaking the broadcast's delivery moves them); the same seed gives the same figures.
 */
import { describe, expect, it } from 'vitest'
import type { Sabotage } from '../../eval/arms/arm'
import { runExperiment, type Experiment } from '../../eval/experiment'
import { webSearchScenario } from '../../eval/scenarios'
import { simulate } from '../../eval/simulate'

const SEED = 3
const VARIANTS = 4
const run = (arms: ('concord' | 'broadcast' | 'chat')[], sabotage?: Sabotage) => runExperiment({ seed: SEED, runs: 2, variants: VARIANTS, arms, sabotage })
/** Everything but wall time, which is the one figure that is not deterministic. */
const figures = (e: Experiment) =>
  [...e.outcomes].map(([arm, list]) => [arm, list.map(({ wallMs: _w, ...rest }) => rest), Object.entries(e.results.arms[arm]!).filter(([k]) => k !== 'wallMs' && k !== 'worst')])
const sum = (e: Experiment, arm: 'concord' | 'broadcast' | 'chat', f: 'affectedMissed' | 'staleEvidenceUsed' | 'humanInterventions' | 'unaffectedDisturbed' | 'coordinationTokens') =>
  e.outcomes.get(arm)!.reduce((a, o) => a + o[f], 0)

describe('npm run eval', () => {
  it('the Web Search scenario: Concord re-verifies the accepted search tool after the change; broadcast and chat leave it accepted', async () => {
    const concord = await simulate(webSearchScenario(), 'concord', { seed: SEED, run: 0 })
    expect(concord).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, humanInterventions: 0, unfinished: 0 })
    for (const arm of ['broadcast', 'chat'] as const) {
      const baseline = await simulate(webSearchScenario(), arm, { seed: SEED, run: 0 })
      expect(baseline.affectedMissed).toBe(1)
      // The wrong acceptance undone, and the relay to the implementer.
      expect(baseline.humanInterventions).toBe(2)
      expect(baseline.unfinished).toBe(0)
    }
  }, 60_000)

  it('Concord misses no affected task and uses no stale evidence in any run; the baselines do; the same seed gives the same figures', async () => {
    const first = await run(['concord', 'broadcast', 'chat'])
    const concord = first.outcomes.get('concord')!
    expect(concord).toHaveLength(2 * (VARIANTS + 1))
    for (const o of concord) {
      expect(o, `${o.scenario} run ${o.run + 1}`).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, unfinished: 0 })
    }
    for (const arm of ['broadcast', 'chat'] as const) {
      expect(sum(first, arm, 'affectedMissed')).toBeGreaterThan(0)
      for (const o of first.outcomes.get(arm)!) expect(o.unfinished, `${arm} ${o.scenario}`).toBe(0)
    }
    expect(first.results).toMatchObject({ seed: SEED, runs: 2, scenarios: VARIANTS + 1 })
    expect(Object.keys(first.results.arms.concord!).sort()).toEqual(
      ['affectedMissed', 'coordinationTokens', 'humanInterventions', 'staleEvidenceUsed', 'unaffectedDisturbed', 'validEvidenceDiscarded', 'wallMs', 'worst'].sort(),
    )
    const again = await run(['concord', 'broadcast', 'chat'])
    expect(figures(again)).toEqual(figures(first))
  }, 300_000)

  it('goes red when propagation is broken: every change recorded as editorial flags nothing, and affected tasks are accepted', async () => {
    const broken = await run(['concord'], 'concord-skip-flags')
    expect(sum(broken, 'concord', 'affectedMissed')).toBeGreaterThan(0)
  }, 300_000)

  it('goes red when the acceptance gate is broken: refused acceptances written anyway use stale evidence', async () => {
    const broken = await run(['concord'], 'concord-skip-gate')
    expect(sum(broken, 'concord', 'staleEvidenceUsed')).toBeGreaterThan(0)
  }, 300_000)

  it("the baselines' figures come from running them: dropping the broadcast's delivery changes them", async () => {
    const sound = await run(['broadcast'])
    const dropped = await run(['broadcast'], 'broadcast-drop')
    // Nobody hears of a change: nobody is disturbed, more work is accepted wrong, and the human relays more.
    expect(sum(sound, 'broadcast', 'unaffectedDisturbed')).toBeGreaterThan(0)
    expect(sum(dropped, 'broadcast', 'unaffectedDisturbed')).toBe(0)
    expect(sum(dropped, 'broadcast', 'affectedMissed')).toBeGreaterThan(sum(sound, 'broadcast', 'affectedMissed'))
    expect(sum(dropped, 'broadcast', 'humanInterventions')).toBeGreaterThan(sum(sound, 'broadcast', 'humanInterventions'))
  }, 300_000)
})
