/**
 * One serialization per value: a large value (an edit's impact) is turned into JSON once where it is made,
 * and every text that carries it — the HTTP answer of the edit and the event frame on the WebSocket — splices
 * that text in instead of serializing the value again. The value stays a plain object for in-process callers
 * (IPC, core.invoke, tests). Callers must not mutate a value after preserialize.
 */
import { randomUUID } from 'node:crypto'

const texts = new WeakMap<object, string>()

export function preserialize<T extends object>(value: T, json = JSON.stringify(value)): T {
  texts.set(value, json)
  return value
}

/** The pre-made JSON text of a value, if it has one. */
export function serializedText(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? texts.get(value) : undefined
}

// Random per process, so no text a user wrote can be taken for it.
const marker = `\u0001concord-json-${randomUUID()}\u0001`

/**
 * JSON.stringify, reusing the text of every pre-serialized value found up to two levels down (`{ok, value:
 * {decision, impact}}`, `{event, payload: {impact}}`). Anything else costs a plain JSON.stringify.
 */
export function stringifyReusing(value: unknown): string {
  const found: string[] = []
  const known = new Set<object>()
  const look = (v: unknown, depth: number) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return
    if (texts.has(v)) known.add(v)
    else if (depth > 0) for (const child of Object.values(v)) look(child, depth - 1)
  }
  look(value, 2)
  if (!known.size) return JSON.stringify(value)
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && known.has(v)) {
      found.push(texts.get(v)!)
      return marker
    }
    return v
  })
  // JSON.stringify writes the marker as "\u0001concord-json\u0001" (escaped, in quotes): replace each in order.
  const quoted = JSON.stringify(marker)
  let i = 0
  return text.split(quoted).reduce((out, part, n) => (n === 0 ? part : out + (found[i++] ?? 'null') + part), '')
}
