/**
 * One code scenario under one arm: every task implemented in its own tree from the same base and delivered, each
 * head checked once by the tester and the reviewer, each accepted by the human, then merged one after the other.
 * After each merge the tree main has is recorded; untestedTreesLanded counts those that are not the tree of a commit
 * a passing test report named (from git, code/repo.ts), whatever the arm believes.
 */
import { performance } from 'node:perf_hooks'
import type { CodeArm, CodeArmName } from './arm'
import { ConcordCodeArm } from './concord-arm'
import { PlainCodeArm } from './plain-arms'
import { untestedTrees } from './repo'
import type { CodeScenario } from './scenarios'

export interface CodeFigures {
  untestedTreesLanded: number
  reworkTurns: number
  /** The human's actions: one accept and one Merge per task, and what a moved base cost beyond them. */
  humanActions: number
  baseMoveInterventions: number
  coordinationTokens: number
  wallMs: number
}
export const CODE_FIGURES: (keyof CodeFigures)[] = [
  'untestedTreesLanded',
  'reworkTurns',
  'humanActions',
  'baseMoveInterventions',
  'coordinationTokens',
  'wallMs',
]

export interface CodeOutcome extends CodeFigures {
  /** Tasks whose merge never landed: 0 in a sound run. */
  unfinished: number
}

export interface CodeOptions {
  /** Test-only: Concord's workspace merges `as-accepted`, the queue off (a figure must move). */
  merges?: 'verified' | 'as-accepted'
}

export function makeCodeArm(name: CodeArmName, s: CodeScenario, o: CodeOptions = {}): CodeArm {
  return name === 'concord' ? new ConcordCodeArm(s, { merges: o.merges }) : new PlainCodeArm(name, s)
}

export async function simulateCode(s: CodeScenario, name: CodeArmName, o: CodeOptions = {}): Promise<CodeOutcome> {
  const started = performance.now()
  const arm = makeCodeArm(name, s, o)
  try {
    await arm.setup()
    for (let t = 0; t < s.tasks.length; t++) await arm.deliver(t)
    await arm.check()
    for (let t = 0; t < s.tasks.length; t++) await arm.accept(t)
    const landed: string[] = []
    let unfinished = 0
    for (const t of s.order) {
      if (await arm.merge(t)) landed.push(arm.mainTree())
      else unfinished++
    }
    return {
      untestedTreesLanded: untestedTrees(arm.repo, landed, await arm.testedCommits()),
      reworkTurns: arm.reworkTurns,
      humanActions: 2 * s.tasks.length + arm.baseMoveInterventions,
      baseMoveInterventions: arm.baseMoveInterventions,
      coordinationTokens: arm.tokens,
      wallMs: performance.now() - started,
      unfinished,
    }
  } finally {
    await arm.close()
  }
}
