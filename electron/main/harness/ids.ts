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
  comment: 'k',
  plan: 'l',
} as const
export type EntityKind = keyof typeof kinds

/** The one home of the id grammar: a workspace id, and an entity id (workspace, kind letter, row number). */
const WORKSPACE = 'w[0-9a-f]{8}'
const ROW = '\\d{1,15}'
const workspacePattern = new RegExp(`^${WORKSPACE}$`)
const idPattern = new RegExp(`^(${WORKSPACE})-([a-z])(${ROW})$`)

/** The pattern of one kind's ids, to embed in a larger one (its row number is the one capturing group). */
export const idSource = (kind: EntityKind) => `${WORKSPACE}-${kinds[kind]}(${ROW})`

export function newWorkspaceId(): string {
  return 'w' + randomBytes(4).toString('hex')
}

export function isWorkspaceId(id: string): boolean {
  return workspacePattern.test(id)
}

/** An entity id's parts, whatever its kind; null when the text is not an entity id. */
export function splitId(text: string): { workspaceId: string; letter: string; n: number } | null {
  const [, workspaceId, letter, n] = idPattern.exec(text) ?? []
  return workspaceId === undefined || letter === undefined ? null : { workspaceId, letter, n: Number(n) }
}

export function makeId(workspaceId: string, kind: EntityKind, n: number | bigint): string {
  return `${workspaceId}-${kinds[kind]}${n}`
}

export function parseId(id: string, kind: EntityKind, field: string): { workspaceId: string; n: number } {
  const parts = splitId(id)
  if (!parts || parts.letter !== kinds[kind])
    throw new ApiError('invalid_params', `${field}: '${id}' is not a ${kind} id`)
  return { workspaceId: parts.workspaceId, n: parts.n }
}

// The key format (D-3, T-2, …) has its home in shared/keys; re-exported for the core's many callers.
export { makeKey } from '../../../shared/keys'

export function now(): string {
  return new Date().toISOString()
}
