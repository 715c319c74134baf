/**
 * C1: coordination tokens. What Concord puts in front of the members a decision change concerns (its notices, as the
 * brief shows them) against broadcasting the change to every member (the decision's full text and the change, the
 * same message to all), over the experiment's scenarios (eval/: the Web Search scenario and 50 seeded variants, one
 * run, one token estimator for both: characters / 4). Target: ≤ 0.3×.
 * Printed beside it, for what it is: all of Concord's coordination text (notices, the brief lines a change altered,
 * the automatic turns' messages) against the broadcast plus the human's relays the broadcast team needs — Concord's
 * automatic turns ask for re-verification work the broadcast team never learns it needs (README, "The experiment").
 */
import { runExperiment } from '../eval/experiment'
import { verdict } from './util'

const TARGET = 0.3
const VARIANTS = 50

export async function coordinationTokens(): Promise<void> {
  const { outcomes } = await runExperiment({ seed: 1, runs: 1, variants: VARIANTS, arms: ['concord', 'broadcast'] })
  const total = (arm: 'concord' | 'broadcast') => {
    const by: Record<string, number> = {}
    for (const o of outcomes.get(arm) ?? [])
      for (const [source, n] of Object.entries(o.tokensBy)) by[source] = (by[source] ?? 0) + n
    return by
  }
  const concord = total('concord')
  const broadcast = total('broadcast')
  const notices = concord.notice ?? 0
  const sent = broadcast.broadcast ?? 0
  const ratio = notices / sent
  const all = Object.values(concord).reduce((a, b) => a + b, 0)
  const allBroadcast = Object.values(broadcast).reduce((a, b) => a + b, 0)
  const scenarios = (outcomes.get('concord') ?? []).length
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`
  console.log(`C1  coordination tokens over ${scenarios} scenarios (eval seed 1, one run; characters / 4)`)
  console.log(
    `    notices to the members a change concerns ${k(notices)} ÷ the change broadcast to every member ${k(sent)} = ${ratio.toFixed(2)}x (target ≤ ${TARGET}x: ${verdict(ratio <= TARGET)})`,
  )
  console.log(
    `    for comparison, all coordination text: Concord ${k(all)} (${Object.entries(concord)
      .map(([s, n]) => `${s} ${k(n)}`)
      .join(', ')}) ÷ broadcast ${k(allBroadcast)} (${Object.entries(broadcast)
      .map(([s, n]) => `${s} ${k(n)}`)
      .join(', ')}) = ${(all / allBroadcast).toFixed(2)}x`,
  )
}
