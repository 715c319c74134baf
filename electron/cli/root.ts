import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runtimePaths } from '../main/platform/paths'

/** The folder of Concord's package.json (electron/main/paths.ts knows where it is in each layout). */
export const projectRoot = runtimePaths().root

export function concordVersion(): string {
  const file = join(projectRoot, 'package.json')
  return existsSync(file)
    ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown')
    : 'unknown'
}
