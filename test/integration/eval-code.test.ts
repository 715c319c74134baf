/**
 * npm run eval, code scenarios (issue 30): tasks run in parallel on one real repository and merge in turn. Concord's
 * arm — the real harness, worktrees, tasks.merge with merges: verified and its queue, the tester's and reviewer's
 * automatic turns — lands no tree that a passing test report did not check, with no human action beyond accept and
 * Merge; a careless arm lands such trees; the careful human lands none but pays in rework and actions. With Concord's
 * workspace set to merges: as-accepted the figure moves (the queue is what keeps main tested).
 */
import { describe, expect, it } from 'vitest'
import { searchCodeScenario } from '../../eval/code/scenarios'
import { simulateCode } from '../../eval/code/simulate'

const SLOW = 180_000

describe('npm run eval: code scenarios', () => {
  it(
    'Concord lands 0 untested trees with no base-move intervention; broadcast lands them; careful lands none at a higher cost',
    async () => {
      const s = searchCodeScenario()
      const concord = await simulateCode(s, 'concord')
      expect(concord).toMatchObject({ untestedTreesLanded: 0, baseMoveInterventions: 0, unfinished: 0 })
      expect(concord.humanActions).toBe(2 * s.tasks.length)
      // T-2 overlaps T-1 (src/search.js): its implementer is told, the test and the review run again; T-3 shares no
      // file: only the test runs again.
      expect(concord.reworkTurns).toBe(4)

      const broadcast = await simulateCode(s, 'broadcast')
      expect(broadcast.untestedTreesLanded).toBeGreaterThan(0)
      expect(broadcast.unfinished).toBe(0)

      const careful = await simulateCode(s, 'careful')
      expect(careful.untestedTreesLanded).toBe(0)
      expect(careful.reworkTurns).toBeGreaterThan(concord.reworkTurns)
      expect(careful.humanActions).toBeGreaterThan(concord.humanActions)
    },
    SLOW,
  )

  it(
    'with merges: as-accepted, Concord lands what was accepted: the figure counts the untested trees',
    async () => {
      const out = await simulateCode(searchCodeScenario(), 'concord', { merges: 'as-accepted' })
      expect(out.untestedTreesLanded).toBeGreaterThan(0)
      expect(out.reworkTurns).toBe(0)
    },
    SLOW,
  )
})
