import type { z } from 'zod'
import { methods, type MethodName } from '../../../shared/contract'
import { ApiError, type ApiErrorShape } from '../../../shared/errors'
import type { Handlers } from './handlers'

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.length ? i.path.join('.') : 'params'
      if (i.code === 'unrecognized_keys') return `${path === 'params' ? '' : path + ': '}unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`
      return `${path}: ${i.message}`
    })
    .join('; ')
}

export function isMethod(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name)
}

/** Validates the params of one call against the contract and runs its handler. Throws ApiError only. */
export async function dispatch(handlers: Handlers, method: string, raw: unknown): Promise<unknown> {
  if (!isMethod(method)) throw new ApiError('unknown_method', `there is no method '${method}'`)
  const parsed = methods[method].params.safeParse(raw ?? {})
  if (!parsed.success) throw new ApiError('invalid_params', describeIssues(parsed.error))
  const handler = handlers[method] as (p: unknown) => unknown
  try {
    return await handler(parsed.data)
  } catch (err) {
    throw toApiError(err)
  }
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const e = err as { code?: string; message?: string }
  if (e && typeof e.code === 'string' && e.code.startsWith('SQLITE_BUSY')) return new ApiError('busy', 'the harness is busy; try again')
  console.error('internal error:', err instanceof Error ? err.stack : err)
  return new ApiError('internal', 'internal error: see the Concord log')
}

export function errorShape(err: unknown): ApiErrorShape {
  return toApiError(err).toJSON()
}
