/**
 * What the two baselines share: a plain task board (statuses, blockers) and the acceptance a user makes without
 * Concord: reports taken at face value — the latest test and review each say pass on the delivered commit. No
 * flags, no link or claim states, no basis check.
 */
import type { ReportRecord } from '../world'
import { ArmBase, type Status } from './arm'
import { at } from '../at'

export abstract class BoardArm extends ArmBase {
  protected statuses: Status[] = []

  async setup(): Promise<void> {
    this.statuses = this.scenario.tasks.map(() => 'todo')
  }

  /** A line in the team's channel (the chat arm posts it to the thread; broadcast has no channel for it). */
  protected post(_text: string): void {}

  status(task: number): Status {
    return at(this.statuses, task)
  }

  async accept(task: number): Promise<boolean> {
    const sha = this.world.delivered[task]
    const ok = (['test', 'review'] as const).every((kind) => {
      const r = this.world.latest(task, kind)
      return r !== undefined && r.verdict === 'pass' && r.sha === sha
    })
    if (!ok) return false
    this.statuses[task] = 'accepted'
    this.post(`T-${task + 1} accepted.`)
    return true
  }

  async undoAcceptance(task: number): Promise<void> {
    this.statuses[task] = 'in_progress'
    this.post(`T-${task + 1} reopened: its acceptance was wrong.`)
  }

  async start(member: number, task: number): Promise<void> {
    this.statuses[task] = 'in_progress'
    this.post(
      `${at(this.scenario.members, member).name}: starting T-${task + 1} "${at(this.scenario.tasks, task).title}".`,
    )
  }

  async deliver(member: number, task: number, sha: string): Promise<void> {
    this.statuses[task] = 'delivered'
    this.post(`${at(this.scenario.members, member).name}: T-${task + 1} delivered on ${sha.slice(0, 7)}.`)
  }

  async reopen(member: number, task: number): Promise<void> {
    this.statuses[task] = 'in_progress'
    this.post(`${at(this.scenario.members, member).name}: reworking T-${task + 1}.`)
  }

  async acknowledge(): Promise<void> {}

  async report(member: number, r: ReportRecord): Promise<void> {
    this.post(
      `${at(this.scenario.members, member).name}: ${r.kind} of T-${r.task + 1} on ${r.sha.slice(0, 7)}: ${r.verdict}.`,
    )
  }

  async close(): Promise<void> {}
}
