/**
 * The honest bound of an operation: record every statement it runs on one database (SQL text, bound
 * parameters, whether it reads or writes, rows changed), then replay exactly those statements on a
 * page-for-page copy of the database taken just before, on a bare connection, inside one immediate
 * transaction. What the replay costs is what SQLite alone needs for the operation's own reads and writes;
 * the difference to the real operation is the application's own work (mapping, checks, events).
 */
import Database from 'better-sqlite3'
import { time } from './util'
import { at } from '../eval/at'

type Db = Database.Database
type Method = 'run' | 'get' | 'all' | 'iterate'

export interface TracedCall {
  sql: string
  method: Method
  args: unknown[]
  /** The statement only reads (sqlite3_stmt_readonly); an INSERT … RETURNING is a write. */
  reader: boolean
  /** Rows changed by a write (triggers' own rows not counted, as in sqlite3_changes). */
  changes: number
}

const methods: Method[] = ['run', 'get', 'all', 'iterate']

/** Runs fn with every statement of `db` recorded (other databases' statements are ignored). */
export async function traceStatements<T>(
  db: Db,
  fn: () => Promise<T> | T,
): Promise<{ result: T; calls: TracedCall[] }> {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<Method, (...args: unknown[]) => unknown>
  const originals = Object.fromEntries(methods.map((m) => [m, proto[m]])) as Record<
    Method,
    (...args: unknown[]) => unknown
  >
  const calls: TracedCall[] = []
  const changesStmt = db.prepare('SELECT changes() AS n')
  for (const m of methods) {
    proto[m] = function (this: Database.Statement, ...args: unknown[]) {
      const out = originals[m].apply(this, args)
      // Transaction control is the replay's own (one immediate transaction around everything).
      if (
        this.database === db &&
        this !== changesStmt &&
        !/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(this.source)
      ) {
        const reader = this.readonly
        const changes = reader
          ? 0
          : m === 'run'
            ? (out as Database.RunResult).changes
            : (originals.get.call(changesStmt) as { n: number }).n
        calls.push({ sql: this.source, method: m, args: structuredClone(args), reader, changes })
      }
      return out
    }
  }
  try {
    return { result: await fn(), calls }
  } finally {
    for (const m of methods) proto[m] = originals[m]
  }
}

/** Rows written per table and kind, from the recorded writes (what a reader checks the bound against). */
export function writeSet(calls: TracedCall[]): string {
  const byTable = new Map<string, number>()
  for (const c of calls) {
    if (c.reader) continue
    const m = /^\s*(INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+["`]?(\w+)/i.exec(c.sql)
    const key = m ? `${at(m[1]!.split(/\s+/), 0).toLowerCase()} ${m[2]}` : c.sql.slice(0, 30)
    byTable.set(key, (byTable.get(key) ?? 0) + c.changes)
  }
  return [...byTable.entries()].map(([k, n]) => `${k} ${n}`).join(', ')
}

export function counts(calls: TracedCall[]): { reads: number; writes: number; rowsWritten: number } {
  const writes = calls.filter((c) => !c.reader)
  return {
    reads: calls.length - writes.length,
    writes: writes.length,
    rowsWritten: writes.reduce((n, c) => n + c.changes, 0),
  }
}

/** Opens a copy of the database the way the store opens its own (same pragmas). */
export function openBare(file: string): Db {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('synchronous = NORMAL')
  return db
}

const warmUp = new Error('warm-up: rolled back')

/**
 * Replays the calls (prepared beforehand, untimed, as the store's statements are) in one immediate transaction; returns ms.
 * `warm`: first runs them once and rolls back (untimed), so the timed run finds the pages in this connection's
 * cache and its log file started, as the live store's long-lived connection does; a cold replay reads every page
 * from the file first (and made P1h's bound 7× its edit).
 */
export function replay(db: Db, calls: TracedCall[], { warm = false } = {}): number {
  return replayTimed(db, calls, { warm }).wall
}

/** As replay, with the timed run's CPU time (ms) beside its wall-clock time: on a loaded machine, the steadier of the two. */
export function replayTimed(db: Db, calls: TracedCall[], { warm = false } = {}): { wall: number; cpu: number } {
  const prepared = new Map<string, Database.Statement>()
  for (const c of calls) if (!prepared.has(c.sql)) prepared.set(c.sql, db.prepare(c.sql))
  if (warm) {
    // The copy's write-ahead log is written once before (page 1, same content: user_version set to itself), as the
    // live store's is: otherwise the timed commit pays for starting a log file the live edit finds there.
    const version = db.pragma('user_version', { simple: true }) as number
    db.pragma(`user_version = ${version}`)
    try {
      db.transaction(() => {
        runAll(prepared, calls)
        throw warmUp
      }).immediate()
    } catch (err) {
      if (err !== warmUp) throw err
    }
  }
  const c0 = process.cpuUsage()
  const wall = time(() => db.transaction(() => runAll(prepared, calls)).immediate())
  const c = process.cpuUsage(c0)
  return { wall, cpu: (c.user + c.system) / 1000 }
}

function runAll(prepared: Map<string, Database.Statement>, calls: TracedCall[]): void {
  for (const c of calls) {
    const stmt = prepared.get(c.sql)!
    if (c.method === 'iterate') {
      for (const row of stmt.iterate(...c.args)) if (row === undefined) break
    } else if (c.method === 'run') stmt.run(...c.args)
    else if (c.method === 'get') stmt.get(...c.args)
    else stmt.all(...c.args)
  }
}
