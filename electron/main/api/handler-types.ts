/** The shape of the contract's handlers (handlers.ts and the maps it is made of, by subject). */
import type { MethodName, ParsedParams, Result } from '../../../shared/contract'
import type { Harness } from '../harness/harness'
import type { TaskStarted } from '../harness/tasks/task-status'
import type { QueueTurn } from '../harness/tasks/task-update'

export type Handler<M extends MethodName> = (params: ParsedParams<M>) => Result<M> | Promise<Result<M>>
/** Every method of the contract must have a handler: a missing one does not compile. */
export type Handlers = { [M in MethodName]: Handler<M> }

export interface HandlerDeps {
  harness: Harness
  /** A task moved to in progress (not by its own assignee): the runtime starts the assignee's turn on it. */
  onTaskStarted?: TaskStarted
  /** A use case asks for an automatic turn (tasks.updateBranch): the runtime queues it. */
  queueTurn?: QueueTurn
}
