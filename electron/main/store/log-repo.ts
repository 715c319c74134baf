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
  /**
   * Set (schema v12): the notice's reports are its member's reports pinned to the content its edit left, up to
   * the edit's last report (see reportIds); report_ids is then empty. NULL: report_ids lists them.
   */
  report_count: number | null
}

/** A notice, its first few task ids and its counts, with the step that delivered it (see sentPage). */
export interface SentNoticeRow extends Omit<NoticeRow, 'task_ids' | 'report_ids'> {
  first_task_ids: string
  task_count: number
  report_count: number
  step_id: number | null
}

export interface EventRow {
  id: number
  type: string
  payload: string
  created_at: string
}

/** Task ids a sent notice carries (its count says how many in all). */
export const SENT_TASKS = 5

/** Notices (the per-member outbox), the event log and the coordination counters. */
export class LogRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insertNotice: db.prepare(
        `INSERT INTO notices (member_id, kind, decision_id, decision_version, task_ids, report_ids, text, created_at, report_count)
         VALUES (@member_id, @kind, @decision_id, @decision_version, @task_ids, @report_ids, @text, @created_at, @report_count)`,
      ),
      noticeReports: db
        .prepare<{ d: number; v: number; author: number; after: number; limit: number }, number>(
          `SELECT p.report_id FROM decision_impacts i JOIN report_pins p ON p.decision_id = i.decision_id AND p.fingerprint = i.from_fingerprint
           WHERE i.decision_id = @d AND i.version = @v AND p.author_id = @author AND p.report_id > @after AND p.report_id <= i.last_report_id
           ORDER BY p.report_id LIMIT @limit`,
        )
        .pluck(),
      notice: db.prepare<[number], NoticeRow>('SELECT * FROM notices WHERE id = ?'),
      notices: db.prepare<[number], NoticeRow>('SELECT * FROM notices WHERE member_id = ? ORDER BY id'),
      pending: db.prepare<[number], NoticeRow>(
        'SELECT * FROM notices WHERE member_id = ? AND delivered_at IS NULL ORDER BY id',
      ),
      pendingCount: db
        .prepare<[number], number>('SELECT count(*) FROM notices WHERE member_id = ? AND delivered_at IS NULL')
        .pluck(),
      markDelivered: db.prepare(
        'UPDATE notices SET delivered_at = ? WHERE member_id = ? AND delivered_at IS NULL AND id <= ?',
      ),
      sentPage: db.prepare<[number, number], Omit<SentNoticeRow, 'step_id'>>(
        `SELECT n.id, n.member_id, n.kind, n.decision_id, n.decision_version, n.text, n.created_at, n.delivered_at,
           (SELECT json_group_array(value) FROM (SELECT value FROM json_each(n.task_ids) LIMIT ${SENT_TASKS})) AS first_task_ids,
           json_array_length(n.task_ids) AS task_count, coalesce(n.report_count, json_array_length(n.report_ids)) AS report_count
         FROM notices n WHERE n.id < ? ORDER BY n.id DESC LIMIT ?`,
      ),
      lastStep: db.prepare<[], number | null>('SELECT max(id) FROM steps').pluck(),
      stepFrom: db.prepare<[number], { id: number; started_at: string }>(
        'SELECT id, started_at FROM steps WHERE id >= ? ORDER BY id LIMIT 1',
      ),
      noticeStep: db
        .prepare<[number, number, string], number>(
          "SELECT id FROM steps WHERE member_id = ? AND id >= ? AND kind = 'notice' AND started_at >= ? ORDER BY id LIMIT 1",
        )
        .pluck(),
      noticeCount: db.prepare<[], number>('SELECT count(*) FROM notices').pluck(),
      insertEvent: db.prepare('INSERT INTO events (type, payload, created_at) VALUES (?, ?, ?)'),
      events: db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?'),
      bump: db.prepare(
        'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value',
      ),
      // SQLite needs the WHERE to read ON CONFLICT as the upsert of INSERT … SELECT.
      bumpMany: db.prepare<[string]>(
        `INSERT INTO counters (name, value) SELECT key, value FROM json_each(?) WHERE value <> 0
         ON CONFLICT(name) DO UPDATE SET value = value + excluded.value`,
      ),
      counters: db.prepare<[], { name: string; value: number }>('SELECT name, value FROM counters'),
    }
  }

  insertNotice(
    row: Omit<NoticeRow, 'id' | 'delivered_at' | 'report_count'> & { report_count?: number | null },
  ): number {
    return Number(this.s.insertNotice.run({ ...row, report_count: row.report_count ?? null }).lastInsertRowid)
  }

  /** The notice's report ids in (after, …], ascending, at most `limit` (-1: all): listed, or derived from its edit. */
  reportIds(row: NoticeRow, after = 0, limit = -1): number[] {
    if (row.report_count === null) {
      const all = (JSON.parse(row.report_ids) as number[]).filter((id) => id > after)
      return limit < 0 ? all : all.slice(0, limit)
    }
    if (row.report_count === 0) return []
    return this.s.noticeReports.all({
      d: row.decision_id,
      v: row.decision_version,
      author: row.member_id,
      after,
      limit,
    })
  }

  reportCount(row: NoticeRow): number {
    return row.report_count ?? (JSON.parse(row.report_ids) as number[]).length
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

  /** The workspace's notices newest first, those with an id below `beforeId`, each with its delivering step. */
  sentPage(beforeId: number, limit: number): { rows: SentNoticeRow[]; total: number } {
    const firsts = new Map<string, number>()
    const rows = this.s.sentPage.all(beforeId, limit).map((r) => {
      if (r.delivered_at === null) return { ...r, step_id: null }
      let from = firsts.get(r.delivered_at)
      if (from === undefined) firsts.set(r.delivered_at, (from = this.firstStepAt(r.delivered_at)))
      return { ...r, step_id: this.s.noticeStep.get(r.member_id, from, r.delivered_at) ?? null }
    })
    return { rows, total: this.s.noticeCount.get() ?? 0 }
  }

  /**
   * The first step id started at or after `at`. Every step is written with started_at = now(), so started_at rises
   * with the id: a binary search on the primary key finds it in a few lookups, where a scan of a member's steps
   * for each notice took seconds at 100,000 steps (no index on started_at).
   */
  private firstStepAt(at: string): number {
    let lo = 1
    let hi = (this.s.lastStep.get() ?? 0) + 1
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2)
      const step = this.s.stepFrom.get(mid)
      if (step && step.started_at < at) lo = step.id + 1
      else hi = mid
    }
    return lo
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

  /** Several counters in one statement (zeros are skipped, as bump does). */
  bumpMany(by: Record<string, number>): void {
    if (Object.values(by).some((n) => n !== 0)) this.s.bumpMany.run(JSON.stringify(by))
  }

  counters(): Map<string, number> {
    return new Map(this.s.counters.all().map((r) => [r.name, r.value]))
  }
}
