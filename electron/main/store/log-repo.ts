import type { Db } from './connection'

export interface NoticeRow {
  id: number
  member_id: number
  kind: 'decision_changed'
  decision_id: number
  decision_version: number
  task_ids: string
  report_ids: string
  text: string
  created_at: string
  delivered_at: string | null
}

export interface EventRow {
  id: number
  type: string
  payload: string
  created_at: string
}

/** Notices (the per-member outbox), the event log and the coordination counters. */
export class LogRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insertNotice: db.prepare(
        `INSERT INTO notices (member_id, kind, decision_id, decision_version, task_ids, report_ids, text, created_at)
         VALUES (@member_id, @kind, @decision_id, @decision_version, @task_ids, @report_ids, @text, @created_at)`,
      ),
      notice: db.prepare<[number], NoticeRow>('SELECT * FROM notices WHERE id = ?'),
      notices: db.prepare<[number], NoticeRow>('SELECT * FROM notices WHERE member_id = ? ORDER BY id'),
      pending: db.prepare<[number], NoticeRow>('SELECT * FROM notices WHERE member_id = ? AND delivered_at IS NULL ORDER BY id'),
      pendingCount: db.prepare<[number], number>('SELECT count(*) FROM notices WHERE member_id = ? AND delivered_at IS NULL').pluck(),
      markDelivered: db.prepare('UPDATE notices SET delivered_at = ? WHERE member_id = ? AND delivered_at IS NULL AND id <= ?'),
      insertEvent: db.prepare('INSERT INTO events (type, payload, created_at) VALUES (?, ?, ?)'),
      events: db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?'),
      bump: db.prepare('INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value'),
      counters: db.prepare<[], { name: string; value: number }>('SELECT name, value FROM counters'),
    }
  }

  insertNotice(row: Omit<NoticeRow, 'id' | 'delivered_at'>): number {
    return Number(this.s.insertNotice.run(row).lastInsertRowid)
  }

  notice(id: number): NoticeRow | undefined {
    return this.s.notice.get(id)
  }

  notices(memberId: number, pendingOnly: boolean): NoticeRow[] {
    return pendingOnly ? this.s.pending.all(memberId) : this.s.notices.all(memberId)
  }

  pendingCount(memberId: number): number {
    return this.s.pendingCount.get(memberId) ?? 0
  }

  /** Marks the member's pending notices up to `upToId` delivered (those created later stay pending). */
  markDelivered(memberId: number, upToId: number, at: string): void {
    this.s.markDelivered.run(at, memberId, upToId)
  }

  appendEvent(type: string, payload: unknown, at: string): number {
    return Number(this.s.insertEvent.run(type, JSON.stringify(payload), at).lastInsertRowid)
  }

  events(afterId: number, limit: number): EventRow[] {
    return this.s.events.all(afterId, limit)
  }

  bump(name: string, by = 1): void {
    if (by !== 0) this.s.bump.run(name, by)
  }

  counters(): Map<string, number> {
    return new Map(this.s.counters.all().map((r) => [r.name, r.value]))
  }
}
