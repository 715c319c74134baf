/**
 * One Concord per data folder. Two processes on one folder each think the other crashed: the second one's crash
 * recovery kills the first one's running commands and marks its live turns interrupted. So a Concord that runs
 * turns (the app, `concord serve`) holds `<dataDir>/concord.lock`, a 0600 file naming its pid and the start time
 * of that process, created atomically (a complete temp file hard-linked into place: link fails if the lock
 * exists). A lock whose process is gone — or whose pid now belongs to a process with another start time — is
 * stale and taken over. Short-lived commands (`concord export`/`import`, `concord mcp`) take no lock: they
 * recover nothing, so they leave a running Concord alone.
 */
import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { storageFault } from './faults'
import { processStartTime } from './process-records'

export const LOCK_FILE = 'concord.lock'

interface LockContent {
  pid: number
  /** processStartTime(pid) when the lock was taken: a reused pid has another. */
  startTime: string | null
  /** Tells this lock from any other with the same pid (two cores in one process, a takeover). */
  token: string
  startedAt: string
}

export interface DataDirLock {
  readonly file: string
  /** Removes the lock if it is still this one's. Idempotent. */
  release(): void
}

function readLock(file: string): LockContent | null | 'missing' {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw err
  }
  try {
    const v = JSON.parse(text) as Partial<LockContent>
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.token === 'string') {
      return {
        pid: v.pid,
        startTime: typeof v.startTime === 'string' ? v.startTime : null,
        token: v.token,
        startedAt: typeof v.startedAt === 'string' ? v.startedAt : '',
      }
    }
  } catch {
    // An empty or damaged lock (a crash while it was written, which the temp file and link make unlikely).
  }
  return null
}

/** True while the process that wrote the lock runs: same pid, same start time, not a zombie. */
function holderAlive(lock: LockContent): boolean {
  const now = processStartTime(lock.pid)
  if (now === undefined) return false
  if (lock.startTime !== null && now !== lock.startTime) return false
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${lock.pid}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false
    } catch {
      return false
    }
  }
  return true
}

function lockedError(dataDir: string, pid: number): ApiError {
  return new ApiError(
    'data_dir_locked',
    `another Concord (pid ${pid}) uses ${dataDir}; stop it first, or give this one another data folder (--data-dir)`,
  )
}

/** Takes the lock of the data folder, or throws data_dir_locked naming the holder's pid. */
export function lockDataDir(dataDir: string): DataDirLock {
  try {
    return takeLock(dataDir)
  } catch (err) {
    if (err instanceof ApiError) throw err
    // A read-only or full data folder: said the way the rest of the start says it.
    throw storageFault(err, `The data folder ${dataDir}`, dataDir) ?? err
  }
}

function takeLock(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE)
  const mine: LockContent = {
    pid: process.pid,
    startTime: processStartTime(process.pid) ?? null,
    token: randomBytes(12).toString('hex'),
    startedAt: new Date().toISOString(),
  }
  const tmp = join(dataDir, `.${LOCK_FILE}.${process.pid}.${mine.token}`)
  const fd = openSync(tmp, 'wx', 0o600)
  try {
    writeSync(fd, JSON.stringify(mine) + '\n')
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file)
        break
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const held = readLock(file)
      if (held === 'missing') continue
      if (held !== null && holderAlive(held)) throw lockedError(dataDir, held.pid)
      if (attempt > 5) throw lockedError(dataDir, held?.pid ?? 0)
      // Stale: move it aside under a name only this process uses, and check that what moved is the stale lock
      // just read (another starting Concord may have taken over in between: its lock goes back).
      const aside = `${tmp}.stale`
      try {
        renameSync(file, aside)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw err
      }
      const moved = readLock(aside)
      const same = held === null ? moved === null : moved !== null && moved !== 'missing' && moved.token === held.token
      if (!same && moved !== null && moved !== 'missing' && holderAlive(moved)) {
        try {
          linkSync(aside, file)
        } finally {
          rmSync(aside, { force: true })
        }
        throw lockedError(dataDir, moved.pid)
      }
      rmSync(aside, { force: true })
    }
  } finally {
    rmSync(tmp, { force: true })
  }
  let released = false
  return {
    file,
    release() {
      if (released) return
      released = true
      const held = readLock(file)
      if (held !== 'missing' && held !== null && held.token === mine.token) rmSync(file, { force: true })
    },
  }
}
