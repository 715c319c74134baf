import type { z } from 'zod'
import { methods, type MethodName } from '../../../shared/contract'
import { ApiError, type ApiErrorShape } from '../../../shared/errors'
import { isSqliteError, storageFault } from '../platform/faults'
import { workspaceFileName } from '../harness/harness'
import { isWorkspaceId, splitId } from '../harness/ids'
import { LOG_FILE, type ErrorLog } from '../platform/log/logger'
import type { Handlers } from './handlers'

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.length ? i.path.join('.') : 'params'
      if (i.code === 'unrecognized_keys')
        return `${path === 'params' ? '' : path + ': '}unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`
      return `${path}: ${i.message}`
    })
    .join('; ')
}

export function isMethod(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name)
}

/** Names a workspace for messages (`workspace "demo" (w1a2b3c4d)`), or undefined when it is unknown. */
export type WorkspaceNamer = (workspaceId: string) => string | undefined

export interface DispatchOptions {
  nameWorkspace?: WorkspaceNamer
  /** Where internal errors and storage faults are recorded, with the method and workspace of the call. */
  log?: ErrorLog
}

/** What toApiError knows of the call that failed. */
export interface ErrorContext {
  method: string
  log?: ErrorLog
}

/** Validates the params of one call against the contract and runs its handler. Throws ApiError only. */
export async function dispatch(
  handlers: Handlers,
  method: string,
  raw: unknown,
  options: DispatchOptions = {},
): Promise<unknown> {
  if (!isMethod(method)) throw new ApiError('unknown_method', `there is no method '${method}'`)
  const parsed = methods[method].params.safeParse(raw ?? {})
  if (!parsed.success) throw new ApiError('invalid_params', describeIssues(parsed.error))
  const handler = handlers[method] as (p: unknown) => unknown
  try {
    return await handler(parsed.data)
  } catch (err) {
    throw toApiError(err, parsed.data, options.nameWorkspace, { method, log: options.log })
  }
}

/** The workspace a call addressed: its workspaceId, else the first routable entity id among its params. */
export function workspaceOfParams(params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined
  const p = params as Record<string, unknown>
  if (typeof p.workspaceId === 'string' && isWorkspaceId(p.workspaceId)) return p.workspaceId
  // Routable entity ids (`w1a2b3c4d-d7`, harness/ids.ts) carry their workspace.
  for (const v of Object.values(p)) {
    const id = typeof v === 'string' ? splitId(v) : null
    if (id) return id.workspaceId
  }
  return undefined
}

/**
 * The funnel every failure of a handler goes through. Storage failures get their stable code and
 * name the workspace of the call; anything else unexpected is a bug: `internal`, recorded in the
 * log file with the method and workspace (and on the console, for whoever runs `concord serve`).
 */
export function toApiError(
  err: unknown,
  params?: unknown,
  nameWorkspace?: WorkspaceNamer,
  context?: ErrorContext,
): ApiError {
  if (err instanceof ApiError) return err
  const wsId = workspaceOfParams(params)
  let subject = 'Concord’s storage'
  if (wsId) {
    try {
      subject = nameWorkspace?.(wsId) ?? `workspace ${wsId}`
    } catch {
      // The registry itself may be what failed; the id alone still names the workspace.
      subject = `workspace ${wsId}`
    }
  }
  const where = { method: context?.method, workspaceId: wsId, workspace: wsId ? subject : undefined }
  const file = wsId && isSqliteError(err) ? workspaceFileName(wsId) : undefined
  const fault = storageFault(err, subject, file)
  if (fault) {
    context?.log?.warn({ ...where, code: fault.code, err }, 'storage fault')
    console.error(`storage fault (${fault.code}) in ${subject}: ${(err as Error).message}`)
    return fault
  }
  console.error('internal error:', err instanceof Error ? err.stack : err)
  if (!context?.log) return new ApiError('internal', 'internal error: see the Concord console output')
  context.log.error({ ...where, err }, 'internal error')
  return new ApiError('internal', `internal error: see ${LOG_FILE} in the data folder`)
}

export function errorShape(err: unknown): ApiErrorShape {
  return toApiError(err).toJSON()
}
