/**
 * Writing export files safely: every file is written to a temp file beside it and renamed over the
 * target, and a batch writes all its temp files before renaming any, so a failure leaves every
 * target either as it was or complete — never half-written.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { ApiError } from '../../../shared/errors'

export interface PlannedFile {
  path: string
  content: string
}

export interface WriteOutcome {
  written: string[]
  unchanged: string[]
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder'
    case 'EEXIST':
      return 'a file with that name is in the way'
    case 'ENOSPC':
      return 'no space left on the device'
    case 'EISDIR':
      return 'a folder is in the way of a file'
    default:
      // An errno message names the path (possibly in the data folder): give its code only.
      if (typeof e?.code === 'string' && typeof e.syscall === 'string') return `${e.syscall} failed (${e.code})`
      if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) return `${e.message} (${e.code})`
      return e?.code ?? 'unexpected error'
  }
}

export function ioError(what: string, err: unknown): ApiError {
  return new ApiError('io_error', `${what}: ${reason(err)}`)
}

/**
 * mkdir -p, one level at a time. Node's own `recursive: true` spins forever where mkdir answers
 * ENOENT for a parent that exists (anything under /proc on Linux), which would freeze the app.
 */
function makeDirs(dir: string): void {
  const missing: string[] = []
  for (let cur = resolve(dir); ;) {
    try {
      if (statSync(cur).isDirectory()) break
      throw Object.assign(new Error(`${cur} is not a folder`), { code: 'ENOTDIR' })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    missing.push(cur)
    const parent = dirname(cur)
    if (parent === cur) break
    cur = parent
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err
    }
  }
}

/** Creates the folder if needed and proves it is writable (a probe file, removed again). */
export function ensureWritableDir(dir: string, field = 'outDir'): void {
  try {
    makeDirs(dir)
  } catch (err) {
    throw ioError(`${field}: cannot create or use the folder ${dir}`, err)
  }
  const probe = join(dir, `.concord-probe-${randomBytes(4).toString('hex')}`)
  try {
    closeSync(openSync(probe, 'wx'))
    rmSync(probe, { force: true })
  } catch (err) {
    throw ioError(`${field}: cannot write to ${dir}`, err)
  }
}

/**
 * What ensureWritableDir would refuse first, found without creating anything (a dry run): the nearest existing
 * folder on the way must be a folder.
 */
export function checkCreatableDir(dir: string, field = 'outDir'): void {
  for (let cur = resolve(dir); ; cur = dirname(cur)) {
    let st
    try {
      st = statSync(cur)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw ioError(`${field}: cannot create or use the folder ${dir}`, err)
      if (dirname(cur) === cur) return
      continue
    }
    if (!st.isDirectory()) throw ioError(`${field}: cannot create or use the folder ${dir}`, { code: 'ENOTDIR' })
    return
  }
}

/** True when `path` itself is a symbolic link (not followed); false when it is anything else or missing. */
export function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

function linkRefused(path: string, field: string): ApiError {
  return new ApiError(
    'invalid_params',
    `${field}: ${path} is a symbolic link; Concord never writes through one — replace it with a real folder or file, or export to another folder`,
  )
}

/**
 * Refuses `dir` when it lies in the repository and a folder on the way to it from the repository's root, or
 * `dir` itself, is a symbolic link: a link committed in the repository may lead anywhere (`docs` → `~/.ssh`).
 * Folders outside the repository are the caller's own choice and are not checked.
 */
export function refuseLinksInRepo(repo: string, dir: string, field = 'outDir'): void {
  let root = resolve(repo)
  let rel = relative(root, resolve(dir))
  if (rel.startsWith('..') || isAbsolute(rel)) {
    // The same folder named through the repository's real path (a repository under a linked /tmp).
    try {
      root = realpathSync(repo)
    } catch {
      return
    }
    rel = relative(root, resolve(dir))
    if (rel.startsWith('..') || isAbsolute(rel)) return
  }
  let cur = root
  for (const part of rel.split(sep).filter(Boolean)) {
    cur = join(cur, part)
    let st
    try {
      st = lstatSync(cur)
    } catch {
      return // missing from here on: created as real folders
    }
    if (st.isSymbolicLink()) throw linkRefused(`${relative(root, cur)} in the repository`, field)
  }
}

/**
 * The text of an export file, or null when there is none. A symbolic link is refused unread (its target may be
 * any file of the user's); so is anything that is not a regular file.
 */
export function readTextIfExists(path: string, field = 'outDir'): string | null {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return null
    if (code === 'ELOOP' || isSymlink(path)) throw linkRefused(path, field)
    throw ioError(`cannot read ${path}`, err)
  }
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw ioError(`cannot read ${path}`, { code: 'EISDIR' })
    if (!st.isFile())
      throw new ApiError(
        'invalid_params',
        `${field}: ${path} is not a regular file; move it away or export to another folder`,
      )
    return readFileSync(fd, 'utf8')
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw ioError(`cannot read ${path}`, err)
  } finally {
    closeSync(fd)
  }
}

function writeDurably(path: string, content: string): void {
  const fd = openSync(path, 'wx', 0o644)
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes the files whose content differs from what is on disk (unchanged files keep their bytes
 * and mtime), then removes `obsolete` files (renamed exports). All temp files are written first;
 * if one fails, every temp file is removed and nothing was changed.
 */
export function writeBatch(files: PlannedFile[], obsolete: string[] = []): WriteOutcome {
  const changed = files.filter((f) => readTextIfExists(f.path) !== f.content)
  const temps: { tmp: string; path: string }[] = []
  try {
    for (const f of changed) {
      const tmp = join(dirname(f.path), `.${basename(f.path)}.concord-tmp-${randomBytes(4).toString('hex')}`)
      temps.push({ tmp, path: f.path })
      writeDurably(tmp, f.content)
    }
  } catch (err) {
    for (const t of temps) rmSync(t.tmp, { force: true })
    throw ioError(`cannot write ${temps[temps.length - 1]?.path ?? 'the export'}`, err)
  }
  const done: string[] = []
  try {
    for (const t of temps) {
      renameSync(t.tmp, t.path)
      done.push(t.path)
    }
  } catch (err) {
    for (const t of temps) if (!done.includes(t.path)) rmSync(t.tmp, { force: true })
    throw ioError(
      `cannot replace ${temps[done.length]?.path ?? 'an export file'} (${done.length} of ${temps.length} files were updated)`,
      err,
    )
  }
  for (const path of obsolete) {
    try {
      rmSync(path, { force: true })
    } catch (err) {
      throw ioError(`cannot remove the old export file ${path} after renaming it`, err)
    }
  }
  const written = new Set(done)
  return {
    written: files.filter((f) => written.has(f.path)).map((f) => f.path),
    unchanged: files.filter((f) => !written.has(f.path)).map((f) => f.path),
  }
}
