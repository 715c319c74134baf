/**
 * Folder listing for choosing a repository from the UI (the browser has no native folder dialog).
 * Only folder names leave this module: no file names, no contents. Whoever can call it (the Electron
 * renderer, or a bridge client holding the token) could already type any path into workspaces.open.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import type { FolderEntry, FolderListing } from '../../../../shared/schemas'
import { ApiError } from '../../../../shared/errors'

/** A home folder with more sub-folders than this is listed in part (the listing says so). */
export const MAX_FOLDERS = 1000

const isRepo = (dir: string): boolean => existsSync(join(dir, '.git'))

function resolveFolder(path: string): string {
  if (!isAbsolute(path)) throw new ApiError('invalid_params', `path: ${path} is not an absolute path`)
  if (path.includes('\0')) throw new ApiError('invalid_params', 'path: contains a NUL byte')
  let real: string
  try {
    real = realpathSync(path)
  } catch (err) {
    throw fsError(err, path)
  }
  if (!statSync(real).isDirectory()) throw new ApiError('invalid_params', `path: ${path} is not a folder`)
  return real
}

function fsError(err: unknown, path: string): ApiError {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ApiError('not_found', `${path} does not exist`)
  if (code === 'EACCES' || code === 'EPERM') return new ApiError('forbidden', `Concord may not read ${path}`)
  return new ApiError('io_error', `Could not read ${path}: ${code ?? 'unknown error'}`)
}

/** A folder entry, following a symlink only when it ends at a folder (a dangling one is left out). */
function entryOf(dir: string, name: string, symlink: boolean): FolderEntry | null {
  const path = join(dir, name)
  if (symlink) {
    try {
      if (!statSync(path).isDirectory()) return null
    } catch {
      return null
    }
  }
  return { name, path, isRepo: isRepo(path) }
}

export function listFolders(path?: string): FolderListing {
  const home = homedir()
  const dir = resolveFolder(path ?? home)
  let names: { name: string; symlink: boolean }[]
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => !d.name.startsWith('.') && (d.isDirectory() || d.isSymbolicLink()))
      .map((d) => ({ name: d.name, symlink: d.isSymbolicLink() }))
  } catch (err) {
    throw fsError(err, dir)
  }
  names.sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }))
  const folders: FolderEntry[] = []
  for (const n of names) {
    if (folders.length === MAX_FOLDERS) break
    const entry = entryOf(dir, n.name, n.symlink)
    if (entry) folders.push(entry)
  }
  const parent = dirname(dir)
  return {
    path: dir,
    parent: parent === dir ? null : parent,
    home,
    isRepo: isRepo(dir),
    folders,
    truncated: folders.length < names.length && folders.length === MAX_FOLDERS,
  }
}
