/**
 * `npm run schema`: writes concord-export.schema.json (the JSON Schema of the JSON export) at the
 * repository root from the zod schema. `npm run schema -- --check` only says whether the committed
 * file is current (exit 1 when it is not), for CI.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exportJsonSchema, SCHEMA_FILE } from '../electron/main/export/json-schema'

const file = join(import.meta.dirname, '..', SCHEMA_FILE)
const schema = exportJsonSchema()
let current: string | null = null
try {
  current = readFileSync(file, 'utf8')
} catch {
  // not written yet
}
if (process.argv.includes('--check')) {
  if (current !== schema) {
    console.error(`${SCHEMA_FILE} is out of date: run npm run schema and commit it`)
    process.exit(1)
  }
  console.log(`${SCHEMA_FILE} is current`)
} else if (current === schema) {
  console.log(`${SCHEMA_FILE} is current`)
} else {
  writeFileSync(file, schema)
  console.log(`wrote ${SCHEMA_FILE}`)
}
