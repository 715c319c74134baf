/**
 * Zips the export download writes, under `<dataDir>/downloads/<id>/<name>`, served once by the bridge at
 * `/downloads/<id>/<name>` and removed then (or after an hour). The id is 128 random bits: the URL is the capability,
 * handed only to a caller holding the token (an `<a download>` cannot send the token's header).
 *
 * A zip is written as it is built, under a temporary name (`.<name>.part`) in its own folder, and renamed to its
 * name only once complete: a failed or killed export never leaves a file under the name (issue 32). A failure
 * removes the folder; a kill leaves only the `.part`, swept with the rest after an hour.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Slicer } from './sliced'
import { ZipWriter } from './zip'

/** A download not fetched within this long is removed by the next export. */
const KEEP_MS = 60 * 60 * 1000

const ID = /^[0-9a-f]{32}$/
/** The names exportDownload gives: `<workspace slug>-decisions-<format>.zip`. */
const NAME = /^[a-z0-9][a-z0-9-]*\.zip$/

export const downloadsDir = (dataDir: string) => join(dataDir, 'downloads')

export interface WrittenZip {
  /** Where the bridge serves it: `/downloads/<id>/<name>`. */
  url: string
  size: number
  /** Entries in it. */
  count: number
}

/** Removes downloads older than KEEP_MS (fetched or not, finished or not). */
export function sweepDownloads(dataDir: string, now = Date.now()): void {
  const root = downloadsDir(dataDir)
  let ids: string[]
  try {
    ids = readdirSync(root)
  } catch {
    return
  }
  for (const id of ids) {
    const dir = join(root, id)
    try {
      if (now - statSync(dir).mtimeMs > KEEP_MS) rmSync(dir, { recursive: true, force: true })
    } catch {
      // Gone meanwhile, or not ours to judge: the next sweep looks again.
    }
  }
}

/**
 * Writes a zip of what `fill` adds, to disk as it goes, under a temporary name renamed once complete. On any failure
 * nothing is left: the partial file and its folder are removed and the error is thrown on.
 */
export async function writeZip(
  dataDir: string,
  name: string,
  slicer: Slicer,
  fill: (zip: ZipWriter) => Promise<void>,
): Promise<WrittenZip> {
  if (!NAME.test(name)) throw new Error(`not a download name: ${name}`)
  const id = randomBytes(16).toString('hex')
  const dir = join(downloadsDir(dataDir), id)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const part = join(dir, `.${name}.part`)
  let size = 0
  let count: number
  try {
    const file = await open(part, 'wx', 0o600)
    try {
      const zip = new ZipWriter(async (chunk) => {
        await file.write(chunk)
        size += chunk.length
      }, slicer)
      await fill(zip)
      await zip.finish()
      count = zip.entries
    } finally {
      await file.close()
    }
    await rename(part, join(dir, name))
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
  return { url: `/downloads/${id}/${name}`, size, count }
}

/** The file of a finished download, or null (an unknown id, a name it does not have, one still being written). */
export function downloadFile(dataDir: string, id: string, name: string): string | null {
  if (!ID.test(id) || !NAME.test(name)) return null
  const file = join(downloadsDir(dataDir), id, name)
  return existsSync(file) && statSync(file).isFile() ? file : null
}

/** A download served: its folder goes. */
export function removeDownload(dataDir: string, id: string): void {
  if (ID.test(id)) rmSync(join(downloadsDir(dataDir), id), { recursive: true, force: true })
}
