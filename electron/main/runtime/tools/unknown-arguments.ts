/** The arguments a tool call gives that its schema does not name (zod's objects would drop them silently). */
import type { z } from 'zod'

type Def = {
  type: string
  innerType?: z.ZodType
  in?: z.ZodType
  element?: z.ZodType
  shape?: Record<string, z.ZodType>
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def

/**
 * The arguments `value` has that `schema` does not name (`claims.0.severity`), at every depth. The schemas are
 * shown closed (`additionalProperties: false`), and parseArgs refuses these, so what is listed is what is enforced.
 */
export function unknownArguments(schema: z.ZodType, value: unknown, at = ''): string[] {
  const def = defOf(schema)
  if (def.innerType) return unknownArguments(def.innerType, value, at)
  if (def.type === 'pipe' && def.in) return unknownArguments(def.in, value, at)
  if (def.type === 'array' && def.element && Array.isArray(value))
    return value.flatMap((v, i) => unknownArguments(def.element!, v, `${at}${i}.`))
  if (def.type !== 'object' || !def.shape || !value || typeof value !== 'object' || Array.isArray(value)) return []
  const shape = def.shape
  return Object.entries(value).flatMap(([k, v]) =>
    Object.hasOwn(shape, k) ? unknownArguments(shape[k]!, v, `${at}${k}.`) : [`${at}${k}`],
  )
}
