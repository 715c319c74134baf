import type { EventEnvelope, EventName, Events } from '../../../shared/contract'

export type EventListener = (envelope: EventEnvelope) => void

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
        // A broken subscriber must not undo or block a committed change.
        console.error(`event listener failed for ${event}:`, err instanceof Error ? err.message : err)
      }
    }
  }
}
