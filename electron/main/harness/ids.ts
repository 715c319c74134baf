import { randomBytes } from 'node:crypto'
import { ApiError } from '../../../shared/errors'

/**
 * Ids are routable: `<workspaceId>-<kind letter><row id>` (e.g. `w1a2b3c4d-d7`), so any method that
 * takes an entity id can find the workspace file that holds it without a global index.
 */
export const kinds = {
  member: 'm',
  decision: 'd',
  proposal: 'p',
  task: 't',
  report: 'r',
  claim: 'c',
  notice: 'n',
  step: 's',
  rule: 'a',
} as const
export type EntityKind = keyof typeof kinds

const idPattern = /^(w[0-9a-f]{8})-([a-z])(\d{1,15})$/

export function newWorkspaceId(): string {
  return 'w' + randomBytes(4).toString('hex')
}

export function isWorkspaceId(id: string): boolean {
  return /^w[0-9a-f]{8}$/.test(id)
}

export function makeId(workspaceId: string, kind: EntityKind, n: number | bigint): string {
  return `${workspaceId}-${kinds[kind]}${n}`
}

export function parseId(id: string, kind: EntityKind, field: string): { workspaceId: string; n: number } {
  const [, workspaceId, letter, n] = idPattern.exec(id) ?? []
  if (workspaceId === undefined || letter !== kinds[kind])
    throw new ApiError('invalid_params', `${field}: '${id}' is not a ${kind} id`)
  return { workspaceId, n: Number(n) }
}

// The key format (D-3, T-2, …) has its home in shared/keys; re-exported for the core's many callers.
export { keyPrefix, makeKey } from '../../../shared/keys'

export function now(): string {
  return new Date().toISOString()
}
