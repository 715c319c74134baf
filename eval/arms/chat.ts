/**
 * The shared-chat arm: no decision records. Changes are messages in one team thread, next to every member's
 * status lines; a member's context holds the last CHAT_WINDOW messages of the thread when it steps, so a change
 * that scrolled out before its next step never reaches it. The thread starts no turn. No flags, no gate.
 */
import type { ScenarioChange } from '../scenarios'
import type { Arm, Seen } from './arm'
import { BoardArm } from './board'
import { at } from '../at'

/** Thread messages in a member's context. The lines here are short; a real thread's carry diffs and logs. */
export const CHAT_WINDOW = 20

interface Message {
  text: string
  change?: { index: number; decision: number; statement: string }
}

export class ChatArm extends BoardArm implements Arm {
  readonly name = 'chat' as const
  private readonly thread: Message[] = []
  private readonly read: number[] = []

  override async setup(): Promise<void> {
    await super.setup()
    this.read.push(...this.scenario.members.map(() => 0))
  }

  protected override post(text: string): void {
    this.thread.push({ text })
  }

  async applyChange(index: number, c: ScenarioChange): Promise<void> {
    const d = at(this.scenario.decisions, c.decision)
    const statement = this.world.statement(c.decision)
    const who = c.kind === 'proposal' ? `${at(this.scenario.members, c.proposer!).name} proposed, you agreed` : 'You'
    this.thread.push({
      text: `${who}: "${d.title}" is now: ${statement}`,
      change: { index, decision: c.decision, statement },
    })
  }

  wakes(member: number): boolean {
    return at(this.relays, member).length > 0
  }

  async context(member: number): Promise<Seen> {
    const seen: Seen = { readings: new Map(), asks: [], text: [] }
    const from = Math.max(at(this.read, member), this.thread.length - CHAT_WINDOW)
    for (const m of this.thread.slice(from)) {
      this.count(m.change ? 'thread-change' : 'thread', m.text)
      if (!m.change) continue
      this.reach(member, m.change.index)
      seen.readings.set(m.change.decision, m.change.statement)
    }
    // The whole window is in the member's context; only the lines new to it were counted above.
    seen.text.push(
      this.thread
        .slice(-CHAT_WINDOW)
        .map((m) => m.text)
        .join('\n'),
    )
    this.read[member] = this.thread.length
    this.takeRelays(member, seen)
    return seen
  }
}
