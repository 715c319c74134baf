/** What every method of the contract is built with: its params schema and result type, and the params they share. */
import { z } from 'zod'
import * as s from '../schemas'

export const r = <T>() => undefined as unknown as T
export const method = <P extends z.ZodType, R>(params: P, _result: R) => ({ params, result: _result })

export const actor = { actorId: s.Id.optional() }
export const ws = { workspaceId: s.Id }
/** A page of a list: the cursor the last page returned, and how many at most (default per method). */
export const page = {
  cursor: z.string().min(1).max(100).optional(),
  limit: z.number().int().min(1).max(500).optional(),
}
/** Why a decision or proposal changes, and the chat message it came from. */
export const because = { reason: z.string().max(5_000).optional(), sourceMessageId: z.string().max(200).optional() }
export const statementText = z.string().trim().min(1, 'must not be empty').max(20_000)
/** No path or search text holds a NUL: the file system and SQLite's full-text index would fail on it (500, not 400). */
export const noNul = (t: z.ZodString) => t.regex(/^[^\0]*$/, 'must not contain a NUL character')
export const pathText = noNul(z.string().min(1).max(4096))
