/**
 * The members' behaviour model: one scripted agent, the same in every arm. It is fixed and deterministic:
 *
 * - Context. At each step a member reads what its arm puts into its context (Concord: its brief and notices and
 *   the automatic turn's message; broadcast: the change messages sent to it; chat: the team thread, the last
 *   CHAT_WINDOW messages) plus any message the human typed to it. It updates its reading of a decision only from
 *   text it sees; otherwise it trusts its last reading. It compares decisions by their normative content (the
 *   statement without editorial remarks).
 * - A step happens only when the member has something to do: an ask, a message that starts a turn (a notice's
 *   automatic turn, a broadcast, a relay), a task to work on or to check. An idle member reads nothing.
 * - Implementer: one task at a time. It starts its next to-do task whose blockers are accepted, building against
 *   its reading at that moment; each step adds one unit of work until the task's effort is done, then it delivers
 *   a new artifact. When its reading of a decision the task depends on changes mid-work, it re-aligns (one step,
 *   losing one unit of work). Finished work whose blockers a change has un-accepted waits for them (the core
 *   refuses to deliver it; every arm keeps that rule). Work it has delivered it reopens only when asked (a Concord flag, a human relay) or
 *   when a failing report on it meets a reading that differs from what it built. It acknowledges a task when it
 *   starts, re-aligns or re-checks it (Concord: tasks.acknowledge; nothing in the other arms).
 * - Tester and reviewer: each checks the delivered artifact of the tasks it is named for, once per artifact,
 *   against its reading: a claim per decision, pass when the artifact implements what it read. It checks again
 *   only when asked; an ask that names the stale claims (Concord) re-checks those and carries the others over, an
 *   ask that names none (a human relay) re-checks every claim.
 * - Lead: reads what reaches it; it has no tasks (the member a broadcast disturbs).
 */
import type { Arm, Ask } from './arms/arm'
import type { Scenario, ScenarioMember } from './scenarios'
import { normative, type Claim, type ReportKind, type World } from './world'
import { at } from './at'

interface Work {
  task: number
  building: Map<number, string>
  progress: number
  effort: number
}

export class Member {
  /** Decision index → the normative content as this member last read it. */
  readonly reading = new Map<number, string>()
  private asks: Ask[] = []
  /** Asks to reopen delivered work that waits for its blockers to be accepted again (the core refuses it before). */
  private parked: Ask[] = []
  private work: Work | null = null
  /** Finished work set aside while it waits for its blockers, so the member can take the asks about its other tasks. */
  private shelf: Work[] = []
  private readonly spec: ScenarioMember

  constructor(
    readonly index: number,
    private readonly scenario: Scenario,
    private readonly world: World,
    private readonly arm: Arm,
    /** Per task, the effort of its first build in this run. */
    private readonly efforts: number[],
  ) {
    this.spec = at(scenario.members, index)
    // Everyone starts from the decisions as they were when the work was handed out.
    scenario.decisions.forEach((d, i) => this.reading.set(i, normative(d.statement)))
  }

  private get kind(): ReportKind | null {
    return this.spec.role === 'tester' ? 'test' : this.spec.role === 'reviewer' ? 'review' : null
  }

  private checks(task: number): boolean {
    const t = at(this.scenario.tasks, task)
    return this.kind === 'test' ? t.tester === this.index : this.kind === 'review' && t.reviewer === this.index
  }

  private own(task: number): boolean {
    return at(this.scenario.tasks, task).assignee === this.index
  }

  /** Whether the member takes a step this tick. */
  wantsStep(): boolean {
    if (
      this.asks.length ||
      (this.work && !this.waiting(this.work)) ||
      this.shelf.some((w) => !this.waiting(w)) ||
      this.arm.wakes(this.index) ||
      this.parked.some((a) => this.unblocked(a.task))
    )
      return true
    return this.spec.role === 'implementer'
      ? this.nextTask() !== null || this.reopened() !== null || this.failedWork() !== null
      : this.kind !== null && this.uncheckedTask() !== null
  }

  async step(): Promise<void> {
    const seen = await this.arm.context(this.index)
    for (const [d, s] of seen.readings) this.reading.set(d, normative(s))
    this.asks.push(...seen.asks)
    if (this.spec.role === 'implementer') await this.implement()
    else if (this.kind) await this.check()
    else this.asks = []
  }

  /** Finished work whose blockers are no longer accepted (a change revoked them): the core refuses its delivery. */
  private waiting(w: Work): boolean {
    return w.progress >= w.effort && !this.unblocked(w.task)
  }

  private unblocked(task: number): boolean {
    return at(this.scenario.tasks, task).blockedBy.every((b) => this.arm.status(b) === 'accepted')
  }

  private matches(task: number, impl: Map<number, string>): boolean {
    return at(this.scenario.tasks, task).decisions.every((d) => impl.get(d) === this.reading.get(d))
  }

  private snapshot(task: number): Map<number, string> {
    return new Map(at(this.scenario.tasks, task).decisions.map((d) => [d, this.reading.get(d)!]))
  }

  private begin(task: number, effort: number): void {
    this.work = { task, building: this.snapshot(task), progress: 0, effort }
  }

  // ---- implementer

  private nextTask(): number | null {
    if (this.work) return null
    const i = this.scenario.tasks.findIndex((_, i) => this.own(i) && this.arm.status(i) === 'todo' && this.unblocked(i))
    return i < 0 ? null : i
  }

  /** An own task someone moved back to in progress while the member was not on it. */
  private reopened(): number | null {
    if (this.work) return null
    const i = this.scenario.tasks.findIndex(
      (_, i) => this.own(i) && this.arm.status(i) === 'in_progress' && !this.shelf.some((w) => w.task === i),
    )
    return i < 0 ? null : i
  }

  /** An own delivered task with a failing report on its artifact, built on a reading the member no longer holds. */
  private failedWork(): number | null {
    if (this.work) return null
    const i = this.scenario.tasks.findIndex((_, i) => {
      if (!this.own(i) || this.arm.status(i) !== 'delivered' || !this.unblocked(i)) return false
      const sha = this.world.delivered[i]
      const failing = (['test', 'review'] as const).some((k) => {
        const r = this.world.latest(i, k)
        return r !== undefined && r.sha === sha && r.verdict === 'fail'
      })
      return failing && !this.matches(i, this.world.artifacts.get(sha!)!.impl)
    })
    return i < 0 ? null : i
  }

  private rework(task: number): number {
    return Math.max(1, at(this.efforts, task) - 1)
  }

  private async implement(): Promise<void> {
    // Asks about delivered (or accepted) work first, one per step.
    const ready = this.parked.filter((a) => this.unblocked(a.task))
    this.parked = this.parked.filter((a) => !ready.includes(a))
    const asks = [...ready, ...this.asks.filter((a) => this.own(a.task) && a.kind !== 'reverify')]
    this.asks = []
    if (this.work && this.waiting(this.work)) {
      this.shelf.push(this.work)
      this.work = null
    }
    if (!this.work) {
      const back = this.shelf.findIndex((w) => !this.waiting(w))
      if (back >= 0) this.work = this.shelf.splice(back, 1)[0] ?? null
    }
    for (const [k, ask] of asks.entries()) {
      // One task reopened per step: the asks after it wait for the next steps.
      const later = () => this.asks.push(...asks.slice(k + 1))
      const status = this.arm.status(ask.task)
      // Accepted work is reopened by a decider only (the human), never by its assignee.
      if (status === 'delivered') {
        if (this.work) {
          this.asks.push(ask) // after the task at hand
          continue
        }
        const sha = this.world.delivered[ask.task]
        if (sha && this.matches(ask.task, this.world.artifacts.get(sha)!.impl)) {
          await this.arm.acknowledge(this.index, ask.task)
          continue
        }
        if (!this.unblocked(ask.task)) {
          this.parked.push(ask)
          continue
        }
        later()
        await this.arm.reopen(this.index, ask.task)
        this.begin(ask.task, this.rework(ask.task))
        await this.arm.acknowledge(this.index, ask.task)
        return
      }
      if (status === 'in_progress' && !this.work) {
        later()
        this.begin(ask.task, this.rework(ask.task))
        await this.arm.acknowledge(this.index, ask.task)
        return
      }
      // In progress and being worked on: the re-alignment below sees the new reading. To do: read when it starts.
    }

    if (this.work) {
      const w = this.work
      if (!this.matches(w.task, w.building)) {
        w.building = this.snapshot(w.task)
        w.progress = Math.max(0, w.progress - 1)
        await this.arm.acknowledge(this.index, w.task)
        return
      }
      if (asks.some((a) => a.task === w.task)) await this.arm.acknowledge(this.index, w.task)
      if (this.waiting(w) || ++w.progress < w.effort || this.waiting(w)) return
      const a = this.world.build(w.task, w.building)
      this.world.delivered[w.task] = a.sha
      this.work = null
      await this.arm.deliver(this.index, w.task, a.sha)
      return
    }

    const reopened = this.reopened()
    if (reopened !== null) {
      this.begin(reopened, this.rework(reopened))
      await this.arm.acknowledge(this.index, reopened)
      return
    }
    const failed = this.failedWork()
    if (failed !== null) {
      await this.arm.reopen(this.index, failed)
      this.begin(failed, this.rework(failed))
      await this.arm.acknowledge(this.index, failed)
      return
    }
    const next = this.nextTask()
    if (next !== null) {
      await this.arm.start(this.index, next)
      this.begin(next, at(this.efforts, next))
      await this.arm.acknowledge(this.index, next)
    }
  }

  // ---- tester, reviewer

  private uncheckedTask(): number | null {
    const kind = this.kind!
    const i = this.scenario.tasks.findIndex((_, i) => {
      if (!this.checks(i) || this.arm.status(i) !== 'delivered') return false
      const sha = this.world.delivered[i]
      return !this.world.reports.some(
        (r) => r.task === i && r.kind === kind && r.author === this.index && r.sha === sha,
      )
    })
    return i < 0 ? null : i
  }

  private async check(): Promise<void> {
    const ask = this.asks.find(
      (a) => a.kind === 'reverify' && this.checks(a.task) && this.arm.status(a.task) === 'delivered',
    )
    this.asks = this.asks.filter(
      (a) => a !== ask && a.kind === 'reverify' && this.checks(a.task) && this.arm.status(a.task) === 'delivered',
    )
    if (ask) return this.submit(ask.task, ask.staleDecisions)
    const task = this.uncheckedTask()
    if (task !== null) await this.submit(task, null)
  }

  private async submit(task: number, staleOnly: number[] | null): Promise<void> {
    const kind = this.kind!
    const sha = this.world.delivered[task]!
    const artifact = this.world.artifacts.get(sha)!
    const prev = this.world.reports.findLast((r) => r.task === task && r.kind === kind && r.author === this.index)
    const claims = new Map<number, Claim>()
    for (const d of at(this.scenario.tasks, task).decisions) {
      const old = prev?.sha === sha ? prev.claims.get(d) : undefined
      if (staleOnly !== null && old && !staleOnly.includes(d)) claims.set(d, { ...old, carried: true })
      else
        claims.set(d, {
          read: this.reading.get(d)!,
          pass: artifact.impl.get(d) === this.reading.get(d),
          carried: false,
        })
    }
    const r = this.world.addReport({
      task,
      author: this.index,
      kind,
      verdict: [...claims.values()].every((c) => c.pass) ? 'pass' : 'fail',
      sha,
      basis: this.snapshot(task),
      claims,
    })
    await this.arm.report(this.index, r)
  }
}
