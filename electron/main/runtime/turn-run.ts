/**
 * One turn of a member, around its engine: its tree prepared (a turn undone a moment ago waited for), run by the
 * member's engine (turn-engine.ts) under its approval policy, what it changed in the tree recorded, and any step it
 * left open ended. A turn that cannot start is an error step (the host shows the error state).
 */
import { ApiError } from '../../../shared/errors'
import type { UndoneTurn } from '../../../shared/schemas'
import type { SessionErrorCode } from '../../../shared/session-errors'
import type { EventBus } from '../platform/events/event-bus'
import type { Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, now } from '../harness/ids'
import { stricterPolicy, type ApprovalPolicy } from '../harness/members/approval-policy'
import type { MemberRow, StepRow } from '../harness/rows'
import { undoTurn } from '../harness/tasks/turn-undo'
import type { TurnTree } from '../harness/workspace/turn-trees'
import type { MemberHost, TurnOutcome } from './member-host'
import { busSink, writeStep } from './step-writer'
import type { Turn, TurnEngine } from './turn-engine'
import { prepareTree, recordChanges, recordCheckpoint, snapshot } from './turn-tree'

export interface TurnRunEnv {
  harness: Harness
  bus: EventBus
  /** The member's engine: Concord's own loop, or its agent's over ACP. */
  engine(member: MemberRow): TurnEngine
  /** A turn being undone, by member: its next turn waits for the undo to finish. */
  undoing: Map<string, Promise<unknown>>
  /** The policy of each member's running turn (its own, or stricter from the message that started it). */
  turnPolicies: Map<string, ApprovalPolicy>
}

/** One turn: its tree prepared, run by the member's engine, what it changed in the tree recorded. */
export async function runTurn(env: TurnRunEnv, host: MemberHost, start: StepRow): Promise<TurnOutcome> {
  const { harness, bus } = env
  const ctx = harness.ctx(host.wsId)
  const member = ctx.store.members.get(host.memberRowId)!
  if (!member.agent && (!member.provider_kind || !member.provider_model)) {
    return failTurn(
      bus,
      ctx,
      start,
      `${member.name} has no model provider set: choose one in the member's settings.`,
      'no_provider',
    )
  }
  // A turn undone a moment ago: this one starts on the tree put back, and is told of it (the brief).
  await env.undoing.get(host.memberId)?.catch(() => undefined)
  ctx.store.turnUndo.tell(member.id, start.id)
  let tree: TurnTree
  try {
    tree = await prepareTree(harness, ctx, member, start)
  } catch (err) {
    return failTurn(
      bus,
      ctx,
      start,
      `Could not prepare the repository for this turn: ${err instanceof Error ? err.message : String(err)}`,
      'tree_unavailable',
    )
  }
  const before = tree.readOnly ? null : await snapshot(harness, host.wsId, tree)
  recordCheckpoint(bus, ctx, start, tree, before)
  const turn: Turn = {
    ctx,
    member,
    host,
    start,
    tree,
    // A message from a turn under `ask` keeps that policy here: approval cannot be laundered through a member.
    approval: stricterPolicy(member.approval, start.approval),
    emitStep: busSink(bus, host.wsId),
    emitDelta: (stepId, text) =>
      bus.emit('session.delta', {
        workspaceId: host.wsId,
        memberId: host.memberId,
        stepId: makeId(host.wsId, 'step', stepId),
        text,
      }),
  }
  const engine = env.engine(member)
  env.turnPolicies.set(host.memberId, turn.approval)
  let outcome: TurnOutcome
  try {
    outcome = await engine.run(turn)
  } finally {
    env.turnPolicies.delete(host.memberId)
    endOpenSteps(bus, ctx, start)
  }
  await recordChanges(harness, bus, ctx, start, tree, before)
  engine.after?.(turn, outcome)
  return outcome
}

/**
 * The turn is over: a step of it still streaming or running (its last write failed, e.g. the disk filled mid-stream)
 * is ended as interrupted now, not left open until the next start of Concord. If this write fails too, the restart's
 * recovery ends it (recovery.ts).
 */
function endOpenSteps(bus: EventBus, ctx: Ctx, start: StepRow): void {
  try {
    const open = ctx.store.steps.openOfTurn(start.id)
    if (!open.length) return
    const sink = busSink(bus, ctx.wsId)
    ctx.store.transaction(() => {
      for (const s of open) ctx.store.steps.finish(s.id, { status: 'interrupted', ended_at: now() })
    })
    for (const s of open) {
      const row = ctx.store.steps.get(s.id)
      if (row) sink(row)
    }
  } catch {
    // The store still refuses writes: the steps stay open and the next start's recovery ends them.
  }
}

/** A turn that could not start: its error step (the host shows the error state). */
function failTurn(bus: EventBus, ctx: Ctx, start: StepRow, text: string, code: SessionErrorCode): TurnOutcome {
  writeStep(ctx.store, busSink(bus, ctx.wsId), {
    member_id: start.member_id,
    turn_id: start.id,
    task_id: start.task_id,
    kind: 'error',
    status: 'error',
    text,
    is_error: 1,
    started_at: now(),
    ended_at: now(),
  })
  return { status: 'error', answer: '', error: text, code }
}

/** sessions.undoTurn: refused (busy) while the turn's member is in a turn; its next turn waits for the undo. */
export async function undoWhenIdle(
  harness: Harness,
  ctx: Ctx,
  host: MemberHost,
  undoing: Map<string, Promise<unknown>>,
  stepId: string,
): Promise<UndoneTurn> {
  if (host.abort || undoing.has(host.memberId))
    throw new ApiError('busy', `${host.memberId} is working; wait for its turn to end before undoing a turn`)
  const work = undoTurn(harness, ctx, stepId)
  undoing.set(host.memberId, work)
  try {
    return await work
  } finally {
    undoing.delete(host.memberId)
  }
}
