/**
 * The one writer of a session's steps: a step is stored, then announced to whoever watches the session
 * (`session.step`, which the UI applies as it comes). A step written inside a transaction is announced by its caller
 * once the transaction is over (`quiet`), or by a whole-session event (`session.reset`).
 */
import type { EventBus } from '../platform/events/event-bus'
import { makeId, now } from '../harness/ids'
import type { NewStep, StepRow, StepsRepo, WorkspaceStore } from '../harness/rows'
import { toStep } from '../harness/members/steps'

/** Where a written step is announced. */
export type StepSink = (row: StepRow) => void

/** Announces a step of this workspace on the bus, in its member's session. */
export function busSink(bus: EventBus, wsId: string): StepSink {
  return (row) =>
    bus.emit('session.step', {
      workspaceId: wsId,
      memberId: makeId(wsId, 'member', row.member_id),
      step: toStep(wsId, row),
    })
}

/** A sink for a step whose announcement is its caller's (see the file comment). */
export const quiet: StepSink = () => {}

/** Stores a step and announces it; returns its id. */
export function writeStep(store: WorkspaceStore, sink: StepSink, row: NewStep): number {
  const id = store.steps.insert(row)
  sink(store.steps.get(id)!)
  return id
}

/** Changes a stored step (its status, text, tool, changes) and announces it as it is now. */
export function changeStep(
  store: WorkspaceStore,
  sink: StepSink,
  id: number,
  change: (steps: StepsRepo) => void,
): void {
  change(store.steps)
  const row = store.steps.get(id)
  if (row) sink(row)
}

/** What a turn writes: its steps carry its member, its first step and its task; each is announced. */
export interface TurnSteps {
  insert: (row: Omit<NewStep, 'member_id' | 'turn_id' | 'started_at'>) => number
  finish: (id: number, f: Parameters<StepsRepo['finish']>[1]) => void
  change: (id: number, change: (steps: StepsRepo) => void) => void
}

export function turnSteps(
  store: WorkspaceStore,
  sink: StepSink,
  turn: { memberRowId: number; turnId: number; taskId: number | null },
): TurnSteps {
  return {
    insert: (row) =>
      writeStep(store, sink, {
        member_id: turn.memberRowId,
        turn_id: turn.turnId,
        task_id: turn.taskId,
        started_at: now(),
        ...row,
      }),
    finish: (id, f) => changeStep(store, sink, id, (steps) => steps.finish(id, f)),
    change: (id, change) => changeStep(store, sink, id, change),
  }
}
