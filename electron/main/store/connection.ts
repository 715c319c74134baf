import { closeSync, openSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ApiError } from '../../../shared/errors'
import { tightenFile } from '../platform/data-dir'
import { fillEnumWords } from './enum-words'
import { migrations as defaultMigrations, type Migration } from './migrations'

export type Db = Database.Database

export interface OpenOptions {
  migrations?: Migration[]
  /** Path to a better-sqlite3 native binding built for another ABI (Electron). */
  nativeBinding?: string
  /** What the file is, for messages: `workspace "demo" (w1a2b3c4d)`. Never its path (API errors do not disclose the data folder). */
  label?: string
}

/**
 * SQLite creates a database 0644 and gives its -wal and -shm files the main file's mode: creating the
 * main file 0600 first keeps all three the owner's, whatever the umask. Looser existing modes are tightened.
 */
function ownerOnly(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) tightenFile(f)
}

/** Opens (creating if needed) a SQLite file with the harness pragmas and brings its schema up to date. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:' && file !== '') ownerOnly(file)
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    db.pragma('synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    migrate(db, options.migrations ?? defaultMigrations, options.label ?? 'the database')
    return db
  } catch (err) {
    db.close()
    throw err
  }
}

/**
 * Applies pending migrations in one transaction, then brings enum_words to the shared lists (enum-words.ts); refuses
 * a file written by a newer Concord. A migration that edits a table's definition in sqlite_schema (`writesSchema`)
 * runs with SQLite's defensive mode off, for that transaction only, and the schema version is bumped right after it
 * so that every connection, this one included, reads the new definitions before anything else (SQLite's documented
 * procedure for removing a CHECK; an ALTER TABLE after it in the same transaction otherwise rewrites the definition
 * as it was before the edit, and fails).
 */
export function migrate(db: Db, migrations: Migration[], label = 'the database'): void {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > migrations.length) {
    throw new ApiError(
      'schema_too_new',
      `${label} has schema version ${current}, newer than this Concord understands (${migrations.length}); update Concord to open it`,
    )
  }
  if (current < migrations.length) applyMigrations(db, migrations.slice(current), migrations.length)
  // The words of the shared lists, which change without a migration (032).
  fillEnumWords(db)
}

function applyMigrations(db: Db, pending: Migration[], version: number): void {
  const writesSchema = pending.some((m) => m.writesSchema)
  if (writesSchema) db.unsafeMode(true)
  try {
    db.transaction(() => {
      for (const m of pending) {
        db.exec(m.up)
        // At once: a later ALTER TABLE in the same transaction would edit the definition as it was read before.
        if (m.writesSchema)
          db.pragma(`schema_version = ${(db.pragma('schema_version', { simple: true }) as number) + 1}`)
      }
      db.pragma(`user_version = ${version}`)
    }).immediate()
  } finally {
    if (writesSchema) db.unsafeMode(false)
  }
}
