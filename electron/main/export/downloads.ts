/**
 * Zips the export download writes, under `<dataDir>/downloads/<id>/<name>`, served once by the bridge at
 * `/downloads/<id>/<name>` and removed then, or an hour after it was written: not served past that, removed by a
 * timer, and swept by the next export or the next start of the bridge. The id is 128 random bits: the URL is the capability,
 * handed only to a caller holding the token (an `<a download>` cannot send the token's header).
 *
 * A zip is written as it is built, under a temporary name (`.<name>.part`) in its own folder, and renamed to its
 * name only once complete: a failed or killed export never leaves a file under the name (issue 32). A failure
 * removes the folder; a kill leaves only the `.part`, swept with the rest after an hour.
 */
import { randomBytes } from 'node:crypto'
import { lstatSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
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
    // Gone an hour on even if nobody fetches it and no export sweeps; a Concord stopped before then sweeps it later.
    setTimeout(() => {
      try {
        rmSync(dir, { recursive: true, force: true })
      } catch {
        // Not removable now: the next sweep looks again.
      }
    }, KEEP_MS).unref()
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
  return { url: `/downloads/${id}/${name}`, size, count }
}

/** A finished download on disk. */
interface FinishedDownload {
  path: string
  size: number
}

/**
 * A finished download, unexpired, as a regular file (a link is never followed), left to be fetched (HEAD): its path
 * and size, or null for an unknown id, a name it does not have, one still being written or already taken. An expired
 * one is removed.
 */
export function peekDownload(dataDir: string, id: string, name: string, now = Date.now()): FinishedDownload | null {
  // Nothing is looked up for an id or name the export never gives: `..`, `/`, `%`, a `.part` or `.sending` file.
  if (!ID.test(id) || !NAME.test(name)) return null
  const path = join(downloadsDir(dataDir), id, name)
  try {
    const stat = lstatSync(path)
    if (!stat.isFile()) return null
    if (now - stat.mtimeMs > KEEP_MS) {
      removeDownload(dataDir, id)
      return null
    }
    return { path, size: stat.size }
  } catch {
    return null
  }
}

/**
 * Takes a finished download for sending, once: renamed away from its name in the same step, so a second GET — even
 * one arriving while the first is still being sent — finds nothing. The caller removes it (removeDownload) once the
 * answer closes, sent in full or not. Null as peekDownload.
 */
export function takeDownload(dataDir: string, id: string, name: string, now = Date.now()): FinishedDownload | null {
  const found = peekDownload(dataDir, id, name, now)
  if (!found) return null
  const taken = join(dirname(found.path), `.${name}.sending`)
  try {
    renameSync(found.path, taken)
  } catch {
    return null // taken by another GET in between, or swept
  }
  return { path: taken, size: found.size }
}

/** A download served (or expired): its folder goes. */
export function removeDownload(dataDir: string, id: string): void {
  if (ID.test(id)) rmSync(join(downloadsDir(dataDir), id), { recursive: true, force: true })
}
