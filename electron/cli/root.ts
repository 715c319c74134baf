import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function readPackage(dir: string): { name?: string; version?: string } | null {
  const file = join(dir, 'package.json')
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }) : null
}

/**
 * The folder of Concord's package.json, found upwards from this module: it runs from electron/cli/
 * in a checkout and from a chunk under out/cli/ when built, at different depths.
 */
function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (readPackage(dir)?.name === 'concord') return dir
    const up = dirname(dir)
    if (up === dir) throw new Error(`Concord's package.json was not found above ${fileURLToPath(import.meta.url)}`)
    dir = up
  }
}

export const projectRoot = findProjectRoot()

export function concordVersion(): string {
  return readPackage(projectRoot)?.version ?? 'unknown'
}
