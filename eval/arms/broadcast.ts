/**
 * The broadcast arm: every decision change's full text is sent to every member, and reaches it at its next step
 * (the message starts a turn, as a message to a session does). No flags, no acceptance gate (arms/board.ts).
 */
import type { Scenario, ScenarioChange } from '../scenarios'
import type { World } from '../world'
import type { Arm, Sabotage, Seen } from './arm'
import { BoardArm } from './board'
import { at } from '../at'

interface Message {
  change: number
  decision: number
  statement: string
  text: string
}

export class BroadcastArm extends BoardArm implements Arm {
  readonly name: 'broadcast' | 'careful' = 'broadcast'
  private readonly inbox: Message[][]

  constructor(
    scenario: Scenario,
    world: World,
    private readonly sabotage?: Sabotage,
  ) {
    super(scenario, world)
    this.inbox = scenario.members.map(() => [])
  }

  async applyChange(index: number, c: ScenarioChange): Promise<void> {
    if (this.sabotage === 'broadcast-drop') return // broken delivery: the change reaches nobody
    // What a real broadcast sends: the change (versions, reason, the text it replaces) and the decision's full
    // current text (title, statement, rationale), the same message to every member.
    const d = at(this.scenario.decisions, c.decision)
    const statement = this.world.statement(c.decision)
    const versions = at(this.world.versions, c.decision)
    const by =
      c.kind === 'proposal'
        ? ` (proposed by ${at(this.scenario.members, c.proposer!).name}, accepted)`
        : c.kind === 'revert'
          ? ' (reverted to its first version)'
          : ''
    const text = [
      `Decision change (scenario change ${index + 1}): D-${c.decision + 1} "${d.title}" changed from v${versions.length - 1} to v${versions.length}${by}.`,
      `Now: ${statement}`,
      `Was: ${versions.at(-2)}`,
      `Rationale: ${d.rationale}`,
    ].join('\n')
    for (const box of this.inbox) box.push({ change: index, decision: c.decision, statement, text })
  }

  wakes(member: number): boolean {
    return at(this.inbox, member).length > 0 || at(this.relays, member).length > 0
  }

  async context(member: number): Promise<Seen> {
    const seen: Seen = { readings: new Map(), asks: [], text: [] }
    for (const m of at(this.inbox, member).splice(0)) {
      this.count('broadcast', m.text)
      seen.text.push(m.text)
      this.reach(member, m.change)
      seen.readings.set(m.decision, m.statement)
    }
    this.takeRelays(member, seen)
    return seen
  }
}
