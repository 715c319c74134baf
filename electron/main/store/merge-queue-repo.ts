import type { Db } from './connection'

/** One queued merge (schema v24, merge_queue). */
export interface MergeQueueRow {
  task_id: number
  position: number
  strategy: string
  /** The member who asked for the merge; null: the human. */
  queued_by: number | null
  queued_at: string
  state: 'waiting' | 'updating' | 'verifying' | 'conflict' | 'blocked'
  message: string
  updated_at: string
}

/** A review carried from one head of a task to the next by an update that left the task's own diff as it was. */
export interface ReviewCarryRow {
  task_id: number
  to_commit: string
  from_commit: string
  at: string
}

/** The workspace's merge queue (verified merges) and the reviews carried over by updates. */
export class MergeQueueRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      add: db.prepare(
        `INSERT INTO merge_queue (task_id, position, strategy, queued_by, queued_at, state, message, updated_at)
         VALUES (@task_id, (SELECT COALESCE(MAX(position), 0) + 1 FROM merge_queue), @strategy, @queued_by, @queued_at,
           @state, @message, @updated_at)`,
      ),
      get: db.prepare<[number], MergeQueueRow>('SELECT * FROM merge_queue WHERE task_id = ?'),
      list: db.prepare<[], MergeQueueRow>('SELECT * FROM merge_queue ORDER BY position'),
      among: db.prepare<[string], MergeQueueRow & { rank: number }>(
        `SELECT q.*, (SELECT COUNT(*) FROM merge_queue o WHERE o.position <= q.position) AS rank
         FROM merge_queue q WHERE q.task_id IN (SELECT value FROM json_each(?))`,
      ),
      setState: db.prepare('UPDATE merge_queue SET state = ?, message = ?, updated_at = ? WHERE task_id = ?'),
      remove: db.prepare('DELETE FROM merge_queue WHERE task_id = ?'),
      carry: db.prepare(
        `INSERT INTO review_carries (task_id, to_commit, from_commit, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (task_id, to_commit) DO UPDATE SET from_commit = excluded.from_commit, at = excluded.at`,
      ),
      carriedAmong: db.prepare<[string], ReviewCarryRow>(
        'SELECT * FROM review_carries WHERE task_id IN (SELECT value FROM json_each(?))',
      ),
    }
  }

  add(row: Omit<MergeQueueRow, 'position'>): void {
    this.s.add.run(row)
  }

  get(taskId: number): MergeQueueRow | undefined {
    return this.s.get.get(taskId)
  }

  /** The queue in order: the first goes next. */
  list(): MergeQueueRow[] {
    return this.s.list.all()
  }

  /** The queued rows of a set of tasks, each with its place in the queue (1: next). */
  among(taskIds: number[]): Map<number, MergeQueueRow & { rank: number }> {
    if (!taskIds.length) return new Map()
    return new Map(this.s.among.all(JSON.stringify(taskIds)).map((r) => [r.task_id, r]))
  }

  setState(taskId: number, state: MergeQueueRow['state'], message: string, at: string): void {
    this.s.setState.run(state, message, at, taskId)
  }

  remove(taskId: number): boolean {
    return this.s.remove.run(taskId).changes > 0
  }

  /** The reviews on `from` count for `to` too (an update that left the task's own diff unchanged). */
  carry(taskId: number, to: string, from: string, at: string): void {
    this.s.carry.run(taskId, to, from, at)
  }

  /** The carries of a set of tasks, by task, to_commit → from_commit. */
  carriedAmong(taskIds: number[]): Map<number, Map<string, string>> {
    const out = new Map<number, Map<string, string>>()
    if (!taskIds.length) return out
    for (const r of this.s.carriedAmong.all(JSON.stringify(taskIds))) {
      let m = out.get(r.task_id)
      if (!m) out.set(r.task_id, (m = new Map<string, string>()))
      m.set(r.to_commit, r.from_commit)
    }
    return out
  }
}
