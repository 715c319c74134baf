import { approvalHandlers } from './api/approval-handlers'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { MethodName, Params, Result } from '../../shared/contract'
import { EventBus } from './platform/events/event-bus'
import { startRelay } from './api/concord-mcp/app-relay'
import { ensureDataDir } from './platform/data-dir'
import { lockDataDir } from './platform/data-dir-lock'
import { dispatch } from './api/dispatch'
import { exportHandlers } from './api/export-handlers'
import { harnessHandlers, type Handlers } from './api/handlers'
import { resumeMergeQueues } from './harness/tasks/merge-queue'
import { runtimeHandlers } from './api/runtime-handlers'
import { commentHandlers } from './api/comment-handlers'
import { planHandlers } from './api/plan-handlers'
import { attemptHandlers } from './api/attempt-handlers'
import { archiveHandlers } from './api/archive-handlers'
import { systemHandlers, type Notify, type PickFolder } from './api/system-handlers'
import { treeOpenHandlers, type OpenTree } from './api/tree-open-handlers'
import { Harness, workspaceLabel } from './harness/harness'
import { createLog, type LogOptions } from './platform/log/logger'
import type { CreateProviderOptions } from './runtime/providers'
import { Runtime } from './runtime/runtime'
import { sandboxStatus } from './platform/sandbox/status'
import { plainCipher, SecretStore, type SecretCipher } from './platform/secrets/secret-store'
import { closeBatches } from './platform/git-batch'

export interface CoreOptions {
  dataDir: string
  /** Electron passes safeStorage here when a keychain backs it; otherwise keys sit in a 0600 file, and system.info says so. */
  cipher?: SecretCipher
  nativeBinding?: string
  /** Provider retries and timeouts (tests shorten them). */
  provider?: CreateProviderOptions
  /** The desktop app's native folder dialog (absent in `concord serve`: folders.pick is unsupported there). */
  pickFolder?: PickFolder
  /** The desktop app's system notifications (absent in `concord serve`: system.notify is unsupported there). */
  notify?: Notify
  /** The desktop app opens a task's tree in an editor, a terminal or the file manager (absent in `concord serve`). */
  openTree?: OpenTree
  /** Size and count of the log files in `<dataDir>/logs` (tests make them small). */
  log?: LogOptions
  /**
   * A short-lived command (`concord export`, `concord import`) on a data folder the app may be using at the same
   * time: it recovers nothing a previous process left (open turns, command processes, pending automatic turns),
   * does not take the relay that `concord mcp` processes report to, nor the data folder's lock (data-dir-lock.ts).
   */
  transient?: boolean
  /**
   * false: moving a task to in progress never starts its assignee's turn, whatever the workspace setting
   * (test/fixtures/core.ts: tests that script every model reply themselves). Default true.
   */
  taskStartTurns?: boolean
}

/** The headless core: harness and runtime behind the contract. Electron and `concord serve` both host it. */
export interface Core {
  bus: EventBus
  harness: Harness
  runtime: Runtime
  handlers: Handlers
  /** JSON lines in `<dataDir>/logs/concord.log`: internal errors with their method and workspace. */
  log: Logger
  /** Validated call by name (what every transport uses). */
  call(method: string, params: unknown): Promise<unknown>
  /** Typed call for code inside the main process and tests. */
  invoke<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  close(): Promise<void>
}

export function createCore(options: CoreOptions): Core {
  ensureDataDir(options.dataDir)
  // Before anything recovers a previous process's leftovers: a second Concord on the folder stops here.
  const lock = options.transient ? null : lockDataDir(options.dataDir)
  let core: Core
  try {
    core = openCore(options)
  } catch (err) {
    lock?.release()
    throw err
  }
  if (!lock) return core
  const opened = core
  return { ...core, close: () => opened.close().finally(() => lock.release()) }
}

function openCore(options: CoreOptions): Core {
  const bus = new EventBus()
  const log = createLog(options.dataDir, options.log)
  const secrets = new SecretStore(join(options.dataDir, 'secrets.json'), options.cipher ?? plainCipher)
  const harness = new Harness({ dataDir: options.dataDir, bus, secrets, nativeBinding: options.nativeBinding })
  const nameWorkspace = (id: string) => {
    const row = harness.registry.byId(id)
    return row ? workspaceLabel(row) : undefined
  }
  const call = (method: string, params: unknown): Promise<unknown> =>
    dispatch(handlers, method, params, { nameWorkspace, log: log.logger })
  const invoke = <M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> =>
    call(method, params) as Promise<Result<M>>
  const runtime: Runtime = new Runtime({
    harness,
    bus,
    call: invoke,
    provider: options.provider,
    recover: !options.transient,
    taskStartTurns: options.taskStartTurns,
  })
  // Writes by `concord mcp` processes (agents' harness tools) reach this bus and so the UI.
  // The sandbox check spawns bubblewrap once: done now, while a window loads, not when it first asks (system.info).
  if (!options.transient) void sandboxStatus()
  const relay = options.transient
    ? null
    : startRelay(options.dataDir, bus, (memberId, name, args) => runtime.approveExternal(memberId, name, args))
  const handlers: Handlers = {
    ...harnessHandlers({
      harness,
      onTaskStarted: (wsId, taskRowId, actorId) => runtime.startTask(wsId, taskRowId, actorId),
      queueTurn: (wsId, memberRowId, taskRowId, trigger, lines) =>
        runtime.queueTurn(wsId, memberRowId, taskRowId, trigger, lines),
    }),
    ...runtimeHandlers(runtime),
    ...commentHandlers(harness, runtime),
    ...planHandlers(harness, runtime),
    ...attemptHandlers(harness, runtime),
    ...exportHandlers({ harness }),
    ...systemHandlers({
      pickFolder: options.pickFolder,
      notify: options.notify,
      canOpenTree: Boolean(options.openTree),
      secrets,
      dataDir: options.dataDir,
    }),
    ...treeOpenHandlers({ harness, openTree: options.openTree }),
    ...archiveHandlers(harness, (memberId) => runtime.activity(memberId)),
    ...approvalHandlers(harness, runtime),
  }
  // Queued merges resume where they were (verified merges: merge-queue.ts), once the core is up.
  if (!options.transient) setImmediate(() => resumeMergeQueues(harness))
  return {
    bus,
    harness,
    runtime,
    handlers,
    log: log.logger,
    call,
    invoke,
    async close() {
      try {
        relay?.close()
        await runtime.close()
        harness.close()
        closeBatches()
      } finally {
        log.close()
      }
    },
  }
}
