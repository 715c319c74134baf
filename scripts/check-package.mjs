/**
 * After `npm run dist`: is every file electron/main/paths.ts names for the packaged layout (its packagedFiles) in the
 * package? Files read inside app.asar must be listed in the archive, files other programs open must be in
 * app.asar.unpacked on disk.
 *
 *   checkPackagedApp('dist/linux-unpacked/resources', packagedFiles(…)) → [] or what is missing, one line each
 */
import { existsSync, readdirSync } from 'node:fs'
import { join, sep } from 'node:path'
import { listPackage } from '@electron/asar'

const slashed = (p) => p.split(sep).join('/').replace(/^\//, '')

/** @param {string} resourcesDir @param {{ archived: string[], unpacked: string[] }} needed @returns {string[]} */
export function checkPackagedApp(resourcesDir, needed) {
  const archive = join(resourcesDir, 'app.asar')
  if (!existsSync(archive)) return [`${archive} is missing`]
  const listed = new Set(listPackage(archive, { isPack: false }).map(slashed))
  const missing = []
  for (const file of needed.archived) if (!listed.has(slashed(file))) missing.push(`${file} is not in ${archive}`)
  for (const file of needed.unpacked)
    if (!existsSync(join(`${archive}.unpacked`, file))) missing.push(`${file} is not in ${archive}.unpacked`)
  return missing
}

/** The resources folders electron-builder left in `distDir` (linux-unpacked, win-unpacked, mac*\/Concord.app). @returns {string[]} */
export function packagedResources(distDir) {
  if (!existsSync(distDir)) return []
  const found = []
  for (const entry of readdirSync(distDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const dir = join(distDir, entry.name)
    if (existsSync(join(dir, 'resources', 'app.asar'))) found.push(join(dir, 'resources'))
    for (const app of readdirSync(dir).filter((n) => n.endsWith('.app'))) {
      const resources = join(dir, app, 'Contents', 'Resources')
      if (existsSync(join(resources, 'app.asar'))) found.push(resources)
    }
  }
  return found
}
