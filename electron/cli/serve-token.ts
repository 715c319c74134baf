/**
 * `concord serve`'s token when --token is not given: kept in the data folder (serve-token, mode 0600), made on the first
 * start and read on every later one, so an ordinary restart keeps the address the open tab has working.
 */
import { randomBytes } from 'node:crypto'
import { closeSync, constants, fchmodSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { tightenFile } from '../main/platform/data-dir'

export const MIN_TOKEN_LENGTH = 16
export const TOKEN_FILE = 'serve-token'

/** A token the bridge takes: long enough, and nothing that a URL or a header would mangle. */
const usable = (t: string): boolean => t.length >= MIN_TOKEN_LENGTH && /^[A-Za-z0-9._~-]+$/.test(t)

function readKept(file: string): string | null {
  let fd: number
  try {
    // O_NOFOLLOW: a link planted in its place is not followed to another file.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ELOOP') return null
    throw err
  }
  try {
    return readFileSync(fd, 'utf8').trim()
  } finally {
    closeSync(fd)
  }
}

/**
 * The kept token, made (random, 0600, written whole then renamed into place) when the data folder has none or an
 * unusable one (empty, damaged). A kept file that group or others may read is tightened to 0600.
 */
export function keptToken(dataDir: string): { token: string; file: string; made: boolean } {
  const file = join(dataDir, TOKEN_FILE)
  const kept = readKept(file)
  if (kept !== null && usable(kept)) {
    tightenFile(file)
    return { token: kept, file, made: false }
  }
  const token = randomBytes(24).toString('base64url')
  const tmp = `${file}.${process.pid}.tmp`
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600)
  try {
    fchmodSync(fd, 0o600)
    writeSync(fd, `${token}\n`)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  return { token, file, made: true }
}
