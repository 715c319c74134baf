import { join } from 'node:path'
import type { MethodName, Params, Result } from '../../shared/contract'
import { EventBus } from './api/event-bus'
import { dispatch } from './api/dispatch'
import { harnessHandlers, type Handlers } from './api/handlers'
import { Harness } from './harness/harness'
import { SecretStore, type SecretCipher } from './secrets/secret-store'

export interface CoreOptions {
  dataDir: string
  /** Electron passes safeStorage here; plain Node keeps the secrets file 0600. */
  cipher?: SecretCipher
  nativeBinding?: string
  env?: NodeJS.ProcessEnv
}

/** The headless core: harness and runtime behind the contract. Electron and `concord serve` both host it. */
export interface Core {
  bus: EventBus
  harness: Harness
  handlers: Handlers
  /** Validated call by name (what every transport uses). */
  call(method: string, params: unknown): Promise<unknown>
  /** Typed call for code inside the main process and tests. */
  invoke<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  close(): Promise<void>
}

export function createCore(options: CoreOptions): Core {
  const bus = new EventBus()
  const secrets = new SecretStore(join(options.dataDir, 'secrets.json'), options.cipher)
  const harness = new Harness({ dataDir: options.dataDir, bus, secrets, nativeBinding: options.nativeBinding })
  const handlers = { ...harnessHandlers({ harness }) } satisfies Handlers
  const call = (method: string, params: unknown) => dispatch(handlers, method, params)
  return {
    bus,
    harness,
    handlers,
    call,
    invoke: (method, params) => call(method, params) as never,
    async close() {
      harness.close()
    },
  }
}
