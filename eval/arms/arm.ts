/**
 * What an arm is: how information about a decision change reaches members, and what acceptance checks. Everything
 * else (the members' behaviour, the scenario, the human's procedure, the ground truth) is shared by all arms.
 */
import type { Scenario, ScenarioChange } from '../scenarios'
import { tokens } from '../tokens'
import type { ReportRecord, World } from '../world'
import { at } from '../at'

export type ArmName = 'concord' | 'broadcast' | 'chat' | 'careful'
export const ARMS: ArmName[] = ['concord', 'broadcast', 'chat', 'careful']
export type Status = 'todo' | 'in_progress' | 'delivered' | 'accepted' | 'blocked' | 'cancelled'

/** A request that reached a member: from Concord (an automatic turn) or from the human (a relay). */
export interface Ask {
  kind: 'adjust' | 'recheck-delivery' | 'reverify'
  task: number
  /** For reverify: the decisions whose claims are stale, as Concord shows them; null re-checks every claim. */
  staleDecisions: number[] | null
}

/** What entered a member's context at this step. */
export interface Seen {
  /** Decision index → statement, for every decision whose text the member reads now. */
  readings: Map<number, string>
  asks: Ask[]
  /** The text the arm put into the member's context at this step (a model-driven member's prompt, eval/model.ts). */
  text: string[]
}

/** Test-only breaks, so the tests can see a figure move when the thing behind it is broken. */
export type Sabotage = 'concord-skip-flags' | 'concord-skip-gate' | 'broadcast-drop'

export interface Arm {
  readonly name: ArmName
  setup(): Promise<void>
  // The human.
  applyChange(index: number, change: ScenarioChange): Promise<void>
  /** Accepts the delivered task if the arm's acceptance check lets it; false when refused. */
  accept(task: number): Promise<boolean>
  undoAcceptance(task: number): Promise<void>
  /** The human types a message to a member: the ask, with the current text of the task's decisions. */
  relay(member: number, ask: Ask): void
  // The members.
  /** Something is waiting that starts a turn for the member (a notice's automatic turn, a broadcast, a relay). */
  wakes(member: number): boolean
  context(member: number): Promise<Seen>
  status(task: number): Status
  start(member: number, task: number): Promise<void>
  deliver(member: number, task: number, sha: string): Promise<void>
  reopen(member: number, task: number): Promise<void>
  acknowledge(member: number, task: number): Promise<void>
  report(member: number, r: ReportRecord): Promise<void>
  /** Coordination tokens that entered members' contexts, and (member, change) pairs that reached unconcerned members. */
  readonly tokens: number
  /** The same tokens by where they came from (notice, turn, brief, broadcast, thread, relay). */
  readonly tokensBy: Record<string, number>
  readonly disturbed: number
  /** Actions the arm's own procedure has the human take as changes land (the careful human's), besides the audit's. */
  readonly humanActions?: number
  close(): Promise<void>
}

/** The bookkeeping every arm shares: counters, human relays, and who a change disturbed. */
export abstract class ArmBase {
  tokens = 0
  readonly tokensBy: Record<string, number> = {}
  disturbed = 0
  private readonly reached = new Set<string>()
  protected readonly relays: Ask[][]
  private readonly relayTexts: string[][]

  constructor(
    protected readonly scenario: Scenario,
    protected readonly world: World,
  ) {
    this.relays = scenario.members.map(() => [])
    this.relayTexts = scenario.members.map(() => [])
  }

  private relayText(ask: Ask): string {
    const t = at(this.scenario.tasks, ask.task)
    const what = ask.kind === 'reverify' ? 're-verify' : 're-align'
    return `Please ${what} T-${ask.task + 1} "${t.title}" against the current decisions: ${t.decisions.map((d) => `D-${d + 1}: ${this.world.statement(d)}`).join('; ')}`
  }

  relay(member: number, ask: Ask): void {
    const text = this.relayText(ask)
    this.count('relay', text)
    at(this.relays, member).push(ask)
    at(this.relayTexts, member).push(text)
  }

  /** Counts coordination text entering a member's context, by source. */
  protected count(source: string, text: string): void {
    const n = tokens(text)
    this.tokens += n
    this.tokensBy[source] = (this.tokensBy[source] ?? 0) + n
  }

  /** The human's relays waiting for the member, and the current text they carry. */
  protected takeRelays(member: number, seen: Seen): void {
    for (const ask of at(this.relays, member).splice(0)) {
      for (const d of at(this.scenario.tasks, ask.task).decisions) seen.readings.set(d, this.world.statement(d))
      seen.asks.push(ask)
    }
    seen.text.push(
      ...at(this.relayTexts, member)
        .splice(0)
        .map((t) => `The human: ${t}`),
    )
  }

  /** Counts a change reaching a member it does not concern, once per member and change. */
  protected reach(member: number, change: number): void {
    const key = `${member}:${change}`
    if (this.reached.has(key)) return
    this.reached.add(key)
    if (!this.world.concerned[change]?.has(member)) this.disturbed++
  }
}
