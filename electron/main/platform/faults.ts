/**
 * Storage failures with names. A SQLite result code or an errno becomes a stable API code and a
 * message that says what broke and what to do, naming the workspace (or file) without its path and
 * never quoting the failing file's content.
 */
import { ApiError } from '../../../shared/errors'

export type StorageCode = 'storage_full' | 'storage_corrupt' | 'storage_readonly' | 'storage_busy' | 'io_error'

const ioErrnos = new Set([
  'EIO',
  'EACCES',
  'EPERM',
  'EISDIR',
  'ENOTDIR',
  'ELOOP',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EEXIST',
  'ENOENT',
])

export const isSqliteError = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_')
}

/** The stable code of a storage failure, or null when err is not one (a bug: `internal`). */
export function storageCodeOf(err: unknown): StorageCode | null {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return null
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'storage_full'
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'storage_corrupt'
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'storage_readonly'
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'storage_busy'
  if (
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_PROTOCOL'
  )
    return 'io_error'
  if (ioErrnos.has(code)) return 'io_error'
  return null
}

const what: Record<StorageCode, string> = {
  storage_full: 'the disk (or the database file) is full',
  storage_corrupt: 'its file is damaged',
  storage_readonly: 'its file cannot be written (read-only file or file system)',
  storage_busy: 'its file is locked by another process',
  io_error: 'reading or writing its file failed',
}

const errnoWhat: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a folder is in the way of its file',
  ENOTDIR: 'a file is in the way of its folder',
}

function advice(code: StorageCode, file: string): string {
  switch (code) {
    case 'storage_full':
      return 'free space on the disk that holds the data folder and try again; nothing was saved'
    case 'storage_corrupt':
      return `restore ${file} from a backup, or move it aside to start it empty`
    case 'storage_readonly':
      return `make ${file} and its folder writable by Concord, then try again`
    case 'storage_busy':
      return 'try again in a moment; if it persists, close the other Concord that uses this data folder'
    case 'io_error':
      return `check the disk and the permissions of ${file}`
  }
}

/**
 * The named fault for a storage failure, or null when err is not one. `subject` names what failed
 * (`workspace "demo" (w1a2b3c4d)`), `file` the file a person should act on, relative to the data
 * folder (API messages never carry its absolute path).
 */
export function storageFault(err: unknown, subject: string, file = 'the data folder'): ApiError | null {
  if (err instanceof ApiError) return err
  const code = storageCodeOf(err)
  if (!code) return null
  // The SQLite code or errno helps a person search; err.message may hold a path, so it stays in the log.
  const raw = (err as { code: string }).code
  return new ApiError(code, `${subject}: ${errnoWhat[raw] ?? what[code]} (${raw}); ${advice(code, file)}`)
}
