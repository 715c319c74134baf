import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { harnessTools } from '../../electron/main/runtime/tools/harness-tools'
import { repoTools } from '../../electron/main/runtime/tools/repo-tools'
import { jsonSchemaOf } from '../../electron/main/runtime/tools/tool-schema'

/** The schemas as they were written by hand before they were derived from zod (recorded once, not regenerated). */
const handwritten = JSON.parse(
  readFileSync(new URL('../fixtures/tool-schemas-handwritten.json', import.meta.url), 'utf8'),
) as Record<string, { description: string; parameters: Schema }>
type Schema = {
  [key: string]: unknown
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  enum?: unknown[]
}

// Keywords a derived schema may add: the limits zod validates anyway, told to the model as well.
const addedLimits = new Set(['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'])

/** Differences that matter to a model: types, property names, required fields, enums, descriptions, closed objects. */
function differences(before: Schema, after: Schema, at: string): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(before)) {
    if (k === 'properties' || k === 'items' || k === 'required' || k === 'additionalProperties') continue
    if (JSON.stringify(after[k]) !== JSON.stringify(v))
      out.push(`${at}.${k}: ${JSON.stringify(v)} became ${JSON.stringify(after[k])}`)
  }
  for (const k of Object.keys(after)) {
    if (!(k in before) && !addedLimits.has(k) && k !== 'additionalProperties' && k !== 'required')
      out.push(`${at}: new keyword ${k}`)
  }
  if (after.type === 'object') {
    if (after.additionalProperties !== false) out.push(`${at}: object not closed (additionalProperties)`)
    if (JSON.stringify([...(before.required ?? [])].sort()) !== JSON.stringify([...(after.required ?? [])].sort()))
      out.push(`${at}.required: ${JSON.stringify(before.required)} became ${JSON.stringify(after.required)}`)
    const names = new Set([...Object.keys(before.properties ?? {}), ...Object.keys(after.properties ?? {})])
    for (const name of names) {
      const b = before.properties?.[name]
      const a = after.properties?.[name]
      // An optional property added since (a claim's verdict) leaves what the model was shown as it was.
      if (!b && a && !(after.required ?? []).includes(name)) continue
      if (!b || !a) out.push(`${at}.${name}: ${b ? 'dropped' : 'added'}`)
      else out.push(...differences(b, a, `${at}.${name}`))
    }
  }
  if (before.items && after.items) out.push(...differences(before.items, after.items, `${at}[]`))
  else if (before.items || after.items) out.push(`${at}: items ${before.items ? 'dropped' : 'added'}`)
  return out
}

describe('tool JSON Schemas derived from zod args', () => {
  const tools = [...repoTools(), ...harnessTools()]

  it('show the model what the hand-written schemas showed, for every tool', () => {
    // Every tool that had a hand-written schema is still there; tools added since (list_reports, get_report) were
    // never hand-written: theirs must still be closed objects with a description.
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(Object.keys(handwritten)))
    for (const t of tools) {
      const before = handwritten[t.name]
      if (!before) {
        expect(t.description.length, t.name).toBeGreaterThan(0)
        expect((t.parameters as Schema).additionalProperties, t.name).toBe(false)
        continue
      }
      expect(t.description, t.name).toBe(before.description)
      expect(differences(before.parameters, t.parameters as Schema, t.name), t.name).toEqual([])
    }
  })

  it('are exactly what zod makes of args (written once)', () => {
    for (const t of tools) expect(t.parameters, t.name).toEqual(jsonSchemaOf(t.args))
  })

  it('close nested objects, keep enums and leave optional fields out of required', () => {
    const schema = jsonSchemaOf(
      z.object({
        a: z.enum(['x', 'y']),
        b: z.number().int().optional(),
        c: z.array(z.object({ d: z.string().describe('why') })),
      }),
    )
    expect(schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string', enum: ['x', 'y'] },
        b: { type: 'integer' },
        c: {
          type: 'array',
          items: {
            type: 'object',
            properties: { d: { type: 'string', description: 'why' } },
            required: ['d'],
            additionalProperties: false,
          },
        },
      },
      required: ['a', 'c'],
      additionalProperties: false,
    })
  })

  it('refuse a schema zod cannot express instead of showing the model less than is checked', () => {
    expect(() => jsonSchemaOf(z.object({ at: z.date() }))).toThrow()
  })
})
