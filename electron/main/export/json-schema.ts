/**
 * The JSON Schema of the export, generated from the zod schema (`ExportV1`) so the two cannot
 * drift. It is committed at the repository root (`npm run schema` regenerates it; a test fails when
 * it is stale) and written beside every JSON export, which points to it with a relative `$schema`.
 */
import { z } from 'zod'
import { ExportV1 } from './schema'

export const SCHEMA_FILE = 'concord-export.schema.json'
/** URL-less on purpose: the schema sits beside the export, and nothing is fetched. */
export const SCHEMA_REF = `./${SCHEMA_FILE}`

const TITLE = 'Concord export'

export function exportJsonSchema(): string {
  return JSON.stringify(z.toJSONSchema(ExportV1, { target: 'draft-2020-12' }), null, 2) + '\n'
}

/** True for a schema file Concord wrote (so an export may replace it with its own version's). */
export function isConcordSchema(text: string): boolean {
  try {
    const v = JSON.parse(text) as { title?: unknown; $schema?: unknown }
    return v !== null && typeof v === 'object' && v.title === TITLE && typeof v.$schema === 'string'
  } catch {
    return false
  }
}
