import type { Db } from './connection'

/** The workspace's own settings, one JSON value in its meta table (read on every command, written rarely). */
export class SettingsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[], string>("SELECT value FROM meta WHERE key = 'settings'").pluck(),
      set: db.prepare(
        "INSERT INTO meta (key, value) VALUES ('settings', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ),
    }
  }

  /** The stored object, or {} when none was saved or it is unreadable (the defaults then apply). */
  get(): Record<string, unknown> {
    try {
      const value = JSON.parse(this.s.get.get() ?? '{}') as unknown
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
    } catch {
      return {}
    }
  }

  set(value: Record<string, unknown>): void {
    this.s.set.run(JSON.stringify(value))
  }
}
