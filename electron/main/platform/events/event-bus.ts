import type { EventEnvelope, EventName, Events } from '../../../../shared/contract'

export type EventListener = (envelope: EventEnvelope) => void

/**
 * Where a listener's error goes. A broken subscriber must not undo or block a committed change, so the bus only
 * reports it — with its stack, so the log says which listener it was. The test set-up (test/setup/listener-errors.ts)
 * replaces `report` to fail the test that caused it: an error here is a bug, never an expected outcome.
 */
export const listenerErrors = {
  report(event: string, err: unknown): void {
    console.error(`event listener failed for ${event}:`, err instanceof Error ? (err.stack ?? err.message) : err)
  },
}

/** The main process's push channel: the harness and runtime emit, each transport forwards. */
export class EventBus {
  private readonly listeners = new Set<EventListener>()

  on(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    const envelope = { event, payload } as EventEnvelope
    for (const l of this.listeners) {
      try {
        l(envelope)
      } catch (err) {
        listenerErrors.report(event, err)
      }
    }
  }
}
