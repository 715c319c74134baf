/**
 * The careful human: every decision change is broadcast (as in arms/broadcast.ts), and with it the human asks every
 * member to re-check all of its delivered work against the current decisions — the implementers each task they
 * delivered, the testers and reviewers each task they check, every claim again. Accepted work goes back to delivered
 * until it is checked again, and the human accepts only on reports made after the last change. Nothing is missed,
 * by construction; the price is the re-checking of everything, every time, and the human's actions.
 */
import type { ScenarioChange } from '../scenarios'
import type { Arm, Ask, Seen } from './arm'
import { BroadcastArm } from './broadcast'
import { at } from '../at'

const ASK = 'The human: re-check all of your delivered work against the current decisions.'

export class CarefulArm extends BroadcastArm implements Arm {
  override readonly name = 'careful' as const
  /** The broadcasts the human typed and the acceptances it withdrew. */
  humanActions = 0
  /** Reports made before the last change are not taken for acceptance. */
  private since = 0
  private readonly asks: Ask[][] = this.scenario.members.map(() => [])

  override async applyChange(index: number, c: ScenarioChange): Promise<void> {
    await super.applyChange(index, c)
    this.humanActions++
    this.since = this.world.reports.length
    this.scenario.tasks.forEach((t, i) => {
      const status = this.statuses[i]
      if (status !== 'delivered' && status !== 'accepted') return
      if (status === 'accepted') {
        this.statuses[i] = 'delivered'
        this.humanActions++
      }
      at(this.asks, t.assignee).push({ kind: 'recheck-delivery', task: i, staleDecisions: null })
      for (const checker of new Set([t.tester, t.reviewer]))
        at(this.asks, checker).push({ kind: 'reverify', task: i, staleDecisions: null })
    })
  }

  override async accept(task: number): Promise<boolean> {
    const fresh = (['test', 'review'] as const).every((k) => (this.world.latest(task, k)?.n ?? 0) > this.since)
    return fresh && super.accept(task)
  }

  override wakes(member: number): boolean {
    return super.wakes(member) || at(this.asks, member).length > 0
  }

  override async context(member: number): Promise<Seen> {
    const seen = await super.context(member)
    const asks = at(this.asks, member).splice(0)
    if (asks.length) {
      this.count('broadcast', ASK)
      seen.text.push(ASK)
      seen.asks.push(...asks)
    }
    return seen
  }
}
