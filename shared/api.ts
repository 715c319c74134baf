import type { EventEnvelope, MethodName, Params, Result } from './contract'

/** The client surface every transport offers the renderer: Electron's preload and the browser bridge client. */
export interface ConcordApi {
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  onEvent(listener: (envelope: EventEnvelope) => void): () => void
}
