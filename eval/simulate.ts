/**
 * One scenario under one arm, to the end: the team works in ticks (each member with something to do takes one
 * step, in an order drawn for the tick), the scenario's changes land at their moments, the human accepts what the
 * arm's check lets through. When the team has nothing left to do, the human audits the result against the
 * decisions in force and intervenes where it is wrong, the same procedure in every arm, until every task is
 * accepted on an artifact that implements the current decisions.
 */
import type { Arm, ArmName, Sabotage, Status } from './arms/arm'
import { BroadcastArm } from './arms/broadcast'
import { CarefulArm } from './arms/careful'
import { ChatArm } from './arms/chat'
import { ConcordArm } from './arms/concord'
import { Member } from './member'
import { ModelMember, type Driver, type ModelUsage } from './model'
import { Prng } from './prng'
import type { Moment, Scenario } from './scenarios'
import { World } from './world'
import { at } from './at'

export interface Figures {
  humanInterventions: number
  affectedMissed: number
  staleEvidenceUsed: number
  validEvidenceDiscarded: number
  unaffectedDisturbed: number
  coordinationTokens: number
  wallMs: number
}
export const FIGURES: (keyof Figures)[] = [
  'humanInterventions',
  'affectedMissed',
  'staleEvidenceUsed',
  'validEvidenceDiscarded',
  'unaffectedDisturbed',
  'coordinationTokens',
  'wallMs',
]

export interface Outcome extends Figures {
  /** Tasks still not accepted on a current artifact when the human gave up (MAX_REPAIRS): 0 in a sound run. */
  unfinished: number
  ticks: number
  /** coordinationTokens by source (notice, turn, brief, broadcast, thread, thread-change, relay). */
  tokensBy: Record<string, number>
  /** With model-driven members: calls, wasted steps and the provider's reported token usage. */
  model?: ModelUsage
}

export interface SimulateOptions {
  seed: number
  run: number
  sabotage?: Sabotage
  /** Model-driven members (eval/model.ts): one driver per scenario run; absent, the scripted members. */
  model?: () => Driver
}

const RANK: Record<Status, number> = { todo: 0, blocked: 0, in_progress: 1, delivered: 2, accepted: 3, cancelled: -1 }
const MOMENT_RANK: Record<Moment, number> = { todo: 0, in_progress: 1, delivered: 2, accepted: 3 }
/** Audit rounds before the human gives up on a scenario. */
const MAX_REPAIRS = 20
/** Ticks between the human's looks at the board (acceptance is not instant: evidence can age meanwhile). */
export const HUMAN_EVERY = 3

export function makeArm(name: ArmName, scenario: Scenario, world: World, sabotage?: Sabotage): Arm {
  if (name === 'concord') return new ConcordArm(scenario, world, sabotage)
  if (name === 'broadcast') return new BroadcastArm(scenario, world, sabotage)
  if (name === 'careful') return new CarefulArm(scenario, world)
  return new ChatArm(scenario, world)
}

export async function simulate(scenario: Scenario, armName: ArmName, o: SimulateOptions): Promise<Outcome> {
  const started = performance.now()
  const world = new World(scenario)
  const arm = makeArm(armName, scenario, world, o.sabotage)
  // Run 1 uses the scenario's efforts; later runs vary each task's by one step either way (the same in every arm).
  const timing = new Prng(o.seed, o.run, scenario.tasks.length, 0x7131)
  const efforts = scenario.tasks.map((t) => (o.run === 0 ? t.effort : Math.max(1, t.effort + timing.int(-1, 1))))
  let driver: Driver | undefined
  try {
    await arm.setup()
    driver = o.model?.()
    const members = scenario.members.map((_, i) =>
      driver ? new ModelMember(i, scenario, world, arm, efforts, driver) : new Member(i, scenario, world, arm, efforts),
    )
    const missed = new Set<number>()
    let staleUsed = 0
    let interventions = 0
    let nextChange = 0
    let tick = 0
    const cap = 200 + 20 * scenario.tasks.length

    const audit = () => {
      scenario.tasks.forEach((_, t) => {
        if (arm.status(t) === 'accepted' && !world.aligned(t)) missed.add(t)
      })
    }
    const fire = async () => {
      const c = at(scenario.changes, nextChange)
      world.apply(nextChange, c)
      await arm.applyChange(nextChange, c)
      nextChange++
    }

    /** Ticks until nobody has anything to do; the changes land at their moments (or, the team idle, at once). */
    const work = async (changes: boolean) => {
      // A change lands as soon as its moment is reached: checked before each member's step.
      const due = async () => {
        while (changes && nextChange < scenario.changes.length) {
          const when = at(scenario.changes, nextChange).at
          if (tick < when.notBefore || RANK[arm.status(when.task)] < MOMENT_RANK[when.moment]) break
          await fire()
        }
      }
      for (; tick < cap; tick++) {
        let active = false
        for (const i of new Prng(o.seed, o.run, tick, 0x0bde).shuffle(members.map((_, i) => i))) {
          await due()
          if (!at(members, i).wantsStep()) continue
          active = true
          await at(members, i).step()
        }
        await due()
        // The human looks at the board every HUMAN_EVERY ticks, or when the team has nothing to do.
        if (tick % HUMAN_EVERY === 0 || !active) {
          for (let t = 0; t < scenario.tasks.length; t++) {
            if (arm.status(t) !== 'delivered' || !(await arm.accept(t))) continue
            active = true
            if (!world.aligned(t)) missed.add(t)
            if ((['test', 'review'] as const).some((k) => !world.latest(t, k) || !world.holds(world.latest(t, k)!)))
              staleUsed++
          }
        }
        audit()
        if (active) continue
        if (changes && nextChange < scenario.changes.length) await fire()
        else return
      }
    }

    await work(true)
    for (let round = 0; round < MAX_REPAIRS; round++) {
      const before = interventions
      for (let t = 0; t < scenario.tasks.length; t++) {
        const task = at(scenario.tasks, t)
        const status = arm.status(t)
        if (status === 'accepted' && world.aligned(t)) continue
        // Work waiting for its blockers is for a later round (the core refuses to reopen it before).
        if (!task.blockedBy.every((b) => arm.status(b) === 'accepted')) continue
        if (status === 'accepted') {
          await arm.undoAcceptance(t) // a wrong acceptance undone
          arm.relay(task.assignee, { kind: 'adjust', task: t, staleDecisions: null })
          interventions += 2
        } else if (status === 'delivered' && !world.aligned(t)) {
          arm.relay(task.assignee, { kind: 'adjust', task: t, staleDecisions: null })
          interventions++
        } else if (status === 'delivered') {
          const bad = (['test', 'review'] as const).filter((k) => {
            const r = world.latest(t, k)
            return !r || r.verdict !== 'pass' || !world.holds(r)
          })
          // Sound evidence the arm still refuses: the human asks both for new reports.
          for (const k of bad.length ? bad : (['test', 'review'] as const)) {
            arm.relay(k === 'test' ? task.tester : task.reviewer, { kind: 'reverify', task: t, staleDecisions: null })
            interventions++
          }
        } else {
          // Startable or in progress, and its assignee idle: the human asks it to go on.
          arm.relay(task.assignee, { kind: 'adjust', task: t, staleDecisions: null })
          interventions++
        }
      }
      if (interventions === before) break
      await work(false)
    }
    const unfinished = scenario.tasks.filter((_, t) => !(arm.status(t) === 'accepted' && world.aligned(t))).length
    return {
      humanInterventions: interventions + (arm.humanActions ?? 0),
      affectedMissed: missed.size,
      staleEvidenceUsed: staleUsed,
      validEvidenceDiscarded: world.discarded,
      unaffectedDisturbed: arm.disturbed,
      coordinationTokens: arm.tokens,
      wallMs: performance.now() - started,
      unfinished,
      ticks: tick,
      tokensBy: { ...arm.tokensBy },
      ...(driver ? { model: driver.report() } : {}),
    }
  } finally {
    await driver?.close?.()
    await arm.close()
  }
}
