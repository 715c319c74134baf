/**
 * The ground truth of one run, kept outside every arm: each decision's versions, what each delivered artifact
 * implements, what each report checked and read. The figures are judged against it, never against what an arm
 * believes (Concord's own link and claim states are the thing under test).
 */
import { createHash } from 'node:crypto'
import { EDITORIAL_NOTE, type Scenario, type ScenarioChange } from './scenarios'
import { at } from './at'

/** What a decision requires, editorial remarks and spacing aside: what members compare and artifacts implement. */
export const normative = (statement: string): string =>
  statement.split(EDITORIAL_NOTE).join('').replace(/\s+/g, ' ').trim()

export type ReportKind = 'test' | 'review'

export interface Artifact {
  sha: string
  task: number
  /** Decision index → the normative content this build implements. */
  impl: Map<number, string>
}

export interface Claim {
  /** The content of the decision as the author read it when it checked the claim. */
  read: string
  pass: boolean
  /** Carried over from the author's previous report on the same artifact instead of checked again. */
  carried: boolean
}

export interface ReportRecord {
  n: number
  task: number
  author: number
  kind: ReportKind
  verdict: 'pass' | 'fail'
  sha: string
  /** Decision index → the content the author read (its basis). */
  basis: Map<number, string>
  claims: Map<number, Claim>
}

export class World {
  /** Per decision, the statement of each version. */
  readonly versions: string[][]
  readonly artifacts = new Map<string, Artifact>()
  readonly reports: ReportRecord[] = []
  /** Per task, the artifact it was last delivered on. */
  readonly delivered: (string | null)[]
  /** Per change applied, the members it concerns (see affected). */
  readonly concerned: Set<number>[] = []
  /** Claims checked again although they still held (validEvidenceDiscarded). */
  discarded = 0
  private readonly builds: number[]

  constructor(readonly scenario: Scenario) {
    this.versions = scenario.decisions.map((d) => [d.statement])
    this.delivered = scenario.tasks.map(() => null)
    this.builds = scenario.tasks.map(() => 0)
  }

  statement(d: number): string {
    return at(this.versions, d).at(-1)!
  }

  current(d: number): string {
    return normative(this.statement(d))
  }

  /** Records the change as the new version of its decision; returns whether what it requires changed. */
  apply(index: number, c: ScenarioChange): boolean {
    const before = this.current(c.decision)
    at(this.versions, c.decision).push(c.statement ?? at(at(this.versions, c.decision), 0))
    const changed = before !== this.current(c.decision)
    this.concerned[index] = changed ? this.affected(c.decision) : new Set()
    return changed
  }

  /** Members a change of d concerns: assignees of its tasks and authors of reports on them. */
  affected(d: number): Set<number> {
    const out = new Set<number>()
    this.scenario.tasks.forEach((t, i) => {
      if (!t.decisions.includes(d)) return
      out.add(t.assignee)
      for (const r of this.reports) if (r.task === i) out.add(r.author)
    })
    return out
  }

  /** A new build of the task, implementing `impl`. Deterministic: the n-th build of task t has the same sha in every arm. */
  build(task: number, impl: Map<number, string>): Artifact {
    const n = at(this.builds, task) + 1
    this.builds[task] = n
    const sha = createHash('sha1')
      .update(`${this.scenario.name}:T${task + 1}:build${n}`)
      .digest('hex')
    const a = { sha, task, impl: new Map(impl) }
    this.artifacts.set(sha, a)
    return a
  }

  /** The task's delivered artifact implements the current content of every decision it depends on. */
  aligned(task: number): boolean {
    const sha = at(this.delivered, task)
    const a = sha === null ? undefined : this.artifacts.get(sha)
    return a !== undefined && at(this.scenario.tasks, task).decisions.every((d) => a.impl.get(d) === this.current(d))
  }

  addReport(r: Omit<ReportRecord, 'n'>): ReportRecord {
    // A claim checked again on the same artifact whose decision did not change was valid evidence thrown away.
    const prev = this.latest(r.task, r.kind)
    if (prev && prev.author === r.author && prev.sha === r.sha) {
      for (const [d, c] of r.claims) {
        const old = prev.claims.get(d)
        if (!c.carried && old && old.read === this.current(d) && old.read === c.read) this.discarded++
      }
    }
    const rec = { ...r, n: this.reports.length + 1 }
    this.reports.push(rec)
    return rec
  }

  latest(task: number, kind: ReportKind): ReportRecord | undefined {
    return this.reports.findLast((r) => r.task === task && r.kind === kind)
  }

  /** The report checked the task's delivered artifact and everything it read is still what the decisions require. */
  holds(r: ReportRecord): boolean {
    if (r.sha !== this.delivered[r.task]) return false
    for (const [d, read] of r.basis) if (read !== this.current(d)) return false
    for (const [d, c] of r.claims) if (c.read !== this.current(d)) return false
    return true
  }
}
