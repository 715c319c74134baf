/**
 * What runs one turn of a member: Concord's own loop on a model provider (agent-loop.ts) or an external agent over
 * ACP (acp/acp-turn.ts). The runtime prepares the turn (its tree, its policy, where its steps go) and calls the
 * member's engine; the engine writes the turn's steps and says how it ended.
 */
import type { ApprovalPolicy } from '../harness/members/approval-policy'
import type { Ctx } from '../harness/context'
import type { TurnTree } from '../harness/workspace/turn-trees'
import type { MemberRow, StepRow } from '../harness/rows'
import type { MemberHost, TurnOutcome } from './member-host'
import type { StepSink } from './step-writer'

export interface Turn {
  ctx: Ctx
  member: MemberRow
  host: MemberHost
  /** The turn's first step: the message (or notice) it answers. */
  start: StepRow
  /** The tree it works in: its task's worktree, a read-only checkout to verify, or the base branch. */
  tree: TurnTree
  /** The member's policy, or stricter when the message came from a stricter turn. */
  approval: ApprovalPolicy
  emitStep: StepSink
  emitDelta: (stepId: number, text: string) => void
}

export interface TurnEngine {
  run(turn: Turn): Promise<TurnOutcome>
  /** Once the turn's changes are recorded. */
  after?(turn: Turn, outcome: TurnOutcome): void
}
