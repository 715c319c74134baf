/**
 * What an arm is in a code scenario: how the team's tasks become trees, checks and merges, and what the arm does
 * when a merge moves the base under the others. The procedure is the same in every arm (code/simulate.ts): every
 * task is implemented in its own tree from the same base and delivered, the tester and the reviewer check each
 * delivered head once, the human accepts each, then merges them one after the other in the scenario's order.
 */
export type CodeArmName = 'concord' | 'broadcast' | 'chat' | 'careful'

export interface CodeArm {
  setup(): Promise<void>
  /** The implementer's work: the task's files changed in its own tree, committed and delivered. */
  deliver(task: number): Promise<void>
  /** The tester and the reviewer check every delivered head they have not checked (first checks, not rework). */
  check(): Promise<void>
  /** The human accepts the delivered task (one action). */
  accept(task: number): Promise<void>
  /** The human's Merge (one action) and everything the arm does until the task has landed; false if it never did. */
  merge(task: number): Promise<boolean>
  /** The tree main has now. */
  mainTree(): string
  /** Commits that passing test reports named. */
  testedCommits(): Promise<string[]>
  /** The main repository (to read trees from). */
  readonly repo: string
  /** Turns members spent re-checking or re-doing work after a merge moved the base. */
  readonly reworkTurns: number
  /** The human's actions beyond one accept and one Merge per task: what a moved base cost. */
  readonly baseMoveInterventions: number
  /** Coordination text about merges that entered members' contexts (tokens). */
  readonly tokens: number
  close(): Promise<void>
}
