/**
 * The repository's own ADR conventions: `.adr-dir` (adr-tools: one line, the ADR folder relative to
 * the repository) and `.log4brains.yml` (`project.adrFolder`) choose where MADR files go when no
 * outDir is given; adr-tools' `.adr-sequence.lock` holds the last number it handed out.
 *
 * These files are input from whoever wrote the repository: they are read only if they are small
 * regular files, and a folder that resolves outside the repository (`..`, an absolute path, a
 * symbolic link) is refused.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { parse } from 'yaml'
import { ApiError } from '../../../shared/errors'
import type { Flavour } from './adr-model'
import { ioError } from './files'

export const ADR_DIR_FILE = '.adr-dir'
export const LOG4BRAINS_FILE = '.log4brains.yml'
export const SEQUENCE_LOCK = '.adr-sequence.lock'

const MAX_CONFIG_BYTES = 64 * 1024

/** Where each flavour's own tool looks when the repository says nothing. */
const defaultFolder: Record<Flavour, string> = {
  madr: 'docs/decisions',
  'adr-tools': 'doc/adr',
  log4brains: 'docs/adr',
}

/**
 * The text of a small regular file, or null when there is none. Never blocks on a FIFO or reads a device, and
 * never follows a symbolic link: its target may be any file of the user's, and what it says would come back in
 * the answer (the folder it names) or in an error.
 */
function readSmallFile(path: string, shown: string): string | null {
  let size: number
  try {
    const st = lstatSync(path)
    if (st.isSymbolicLink())
      throw new ApiError(
        'invalid_params',
        `${shown} is a symbolic link; Concord reads ADR settings only from a regular file in the repository — replace it with one, or pass outDir`,
      )
    if (!st.isFile()) throw new ApiError('invalid_params', `${shown} is not a regular file; remove it or pass outDir`)
    size = st.size
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    if (err instanceof ApiError) throw err
    throw ioError(`cannot read ${shown}`, err)
  }
  if (size > MAX_CONFIG_BYTES)
    throw new ApiError(
      'invalid_params',
      `${shown} is larger than ${MAX_CONFIG_BYTES / 1024} KiB; it cannot be an ADR configuration`,
    )
  const buf = Buffer.alloc(size)
  let fd: number | undefined
  try {
    // O_NOFOLLOW: a link swapped in since the check above is refused (ELOOP), not read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    if (!fstatSync(fd).isFile())
      throw new ApiError('invalid_params', `${shown} is not a regular file; remove it or pass outDir`)
    const n = readSync(fd, buf, 0, size, 0)
    return buf.subarray(0, n).toString('utf8')
  } catch (err) {
    if (err instanceof ApiError) throw err
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new ApiError(
        'invalid_params',
        `${shown} is a symbolic link; Concord reads ADR settings only from a regular file in the repository — replace it with one, or pass outDir`,
      )
    throw ioError(`cannot read ${shown}`, err)
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep)

/** The real path of `path`, or of its deepest existing ancestor with the rest appended. */
function realish(path: string): string {
  let cur = path
  const rest: string[] = []
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse())
    } catch {
      const parent = dirname(cur)
      if (parent === cur) return path
      rest.push(basename(cur))
      cur = parent
    }
  }
}

/** `folder` from `source`, resolved in the repository; refused when it leaves the repository. */
function folderIn(repo: string, folder: string, source: string): string {
  if (!folder || /[\0-\x1f]/.test(folder))
    throw new ApiError('invalid_params', `${source} does not name a folder; fix it or pass outDir`)
  const root = realpathSync(repo)
  const target = resolve(root, folder)
  if (isAbsolute(folder) || !inside(root, target) || !inside(root, realish(target))) {
    throw new ApiError(
      'invalid_params',
      `${source} names ${JSON.stringify(folder)}, which is outside the repository; Concord writes ADRs only inside it — fix ${source} or pass outDir`,
    )
  }
  return target
}

/**
 * The folder `folder` names in the repository (the export box's folder field: relative to the repository). Refused
 * with folder_outside_repo when it is absolute, has a `..` part, or leads outside the repository (through a link).
 */
export function repoFolder(repo: string, folder: string, field = 'folder'): string {
  const refuse = (why: string) =>
    new ApiError(
      'folder_outside_repo',
      `${field}: ${JSON.stringify(folder)} ${why}; give a folder inside the repository, relative to it (like docs/decisions)`,
    )
  if (/[\0-\x1f]/.test(folder)) throw new ApiError('invalid_params', `${field}: must not contain control characters`)
  if (isAbsolute(folder) || /^[A-Za-z]:/.test(folder) || folder.startsWith('\\')) throw refuse('is an absolute path')
  if (folder.split(/[\\/]/).includes('..')) throw refuse('has a .. part')
  const root = realpathSync(repo)
  const target = resolve(root, folder)
  if (!inside(root, target) || !inside(root, realish(target))) throw refuse('leads outside the repository')
  return target
}

function fromAdrDir(repo: string): string | null {
  const text = readSmallFile(join(repo, ADR_DIR_FILE), ADR_DIR_FILE)
  if (text === null) return null
  return folderIn(repo, (text.split(/\r?\n/)[0] ?? '').trim(), ADR_DIR_FILE)
}

function fromLog4brains(repo: string): string | null {
  const text = readSmallFile(join(repo, LOG4BRAINS_FILE), LOG4BRAINS_FILE)
  if (text === null) return null
  let config: unknown
  try {
    config = parse(text, { maxAliasCount: 20 })
  } catch (err) {
    const line = (err as { linePos?: { line: number }[] }).linePos?.[0]?.line
    throw new ApiError(
      'invalid_params',
      `${LOG4BRAINS_FILE} is not valid YAML${line ? ` (line ${line})` : ''}; fix it or pass outDir`,
    )
  }
  const folder = (config as { project?: { adrFolder?: unknown } } | null)?.project?.adrFolder
  if (typeof folder !== 'string')
    throw new ApiError('invalid_params', `${LOG4BRAINS_FILE} has no project.adrFolder; add it or pass outDir`)
  return folderIn(repo, folder, `${LOG4BRAINS_FILE} (project.adrFolder)`)
}

/**
 * The ADR folder of the repository for a flavour: the flavour's own tool's file first, then the
 * other's, then that tool's default folder.
 */
export function adrFolder(repo: string, flavour: Flavour): string {
  const order = flavour === 'log4brains' ? [fromLog4brains, fromAdrDir] : [fromAdrDir, fromLog4brains]
  for (const read of order) {
    const dir = read(repo)
    if (dir !== null) return dir
  }
  return join(repo, defaultFolder[flavour])
}

/**
 * The flavour the repository's own files ask for when none is given: `.log4brains.yml` → log4brains, `.adr-dir` →
 * adr-tools, else MADR 4. Only a regular file counts (never followed); a link or anything else there is refused
 * with its reason when adrFolder reads it.
 */
export function repoFlavour(repo: string): Flavour {
  const isFile = (name: string) => {
    try {
      return lstatSync(join(repo, name)).isFile()
    } catch {
      return false
    }
  }
  if (isFile(LOG4BRAINS_FILE)) return 'log4brains'
  if (isFile(ADR_DIR_FILE)) return 'adr-tools'
  return 'madr'
}

/** The last number adr-tools handed out in `dir`, or null when it keeps no lock file (or an unreadable one). */
export function sequenceLock(dir: string): number | null {
  const text = readSmallFile(join(dir, SEQUENCE_LOCK), SEQUENCE_LOCK)
  const m = text === null ? null : /^\s*(\d{1,7})\s*$/.exec(text)
  return m ? Number(m[1]) : null
}
