import type { Db } from './connection'

export type DiffCommentState = 'draft' | 'sent' | 'resolved'
export type DiffCommentSide = 'new' | 'old'

export interface DiffCommentRow {
  id: number
  task_id: number
  path: string
  start_line: number
  end_line: number
  side: DiffCommentSide
  commit_sha: string
  quoted: string
  body: string
  state: DiffCommentState
  created_at: string
  sent_at: string | null
  resolved_at: string | null
  resolved_commit: string | null
}

export type NewDiffComment = Pick<
  DiffCommentRow,
  'task_id' | 'path' | 'start_line' | 'end_line' | 'side' | 'commit_sha' | 'quoted' | 'body' | 'created_at'
>

/** Comments on tasks' diffs (migration 026). */
export class DiffCommentsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare<NewDiffComment>(
        `INSERT INTO diff_comments (task_id, path, start_line, end_line, side, commit_sha, quoted, body, state, created_at)
         VALUES (@task_id, @path, @start_line, @end_line, @side, @commit_sha, @quoted, @body, 'draft', @created_at)`,
      ),
      get: db.prepare<[number], DiffCommentRow>('SELECT * FROM diff_comments WHERE id = ?'),
      ofTask: db.prepare<[number], DiffCommentRow>('SELECT * FROM diff_comments WHERE task_id = ? ORDER BY id'),
      ofTaskIn: db.prepare<[number, string], DiffCommentRow>(
        'SELECT * FROM diff_comments WHERE task_id = ? AND state = ? ORDER BY id',
      ),
      deleteDraft: db.prepare<[number]>("DELETE FROM diff_comments WHERE id = ? AND state = 'draft'"),
      markSent: db.prepare<[string, number]>(
        "UPDATE diff_comments SET state = 'sent', sent_at = ? WHERE id = ? AND state = 'draft'",
      ),
      markResolved: db.prepare<[string, string, number]>(
        "UPDATE diff_comments SET state = 'resolved', resolved_at = ?, resolved_commit = ? WHERE id = ? AND state = 'sent'",
      ),
      openCounts: db.prepare<[string], { task_id: number; n: number }>(
        `SELECT task_id, count(*) AS n FROM diff_comments
         WHERE state = 'sent' AND task_id IN (SELECT value FROM json_each(?)) GROUP BY task_id`,
      ),
    }
  }

  insert(c: NewDiffComment): number {
    return Number(this.s.insert.run(c).lastInsertRowid)
  }

  get(id: number): DiffCommentRow | undefined {
    return this.s.get.get(id)
  }

  ofTask(taskId: number, state?: DiffCommentState): DiffCommentRow[] {
    return state ? this.s.ofTaskIn.all(taskId, state) : this.s.ofTask.all(taskId)
  }

  /** Removes a draft; false when it is not one (sent, resolved or gone). */
  deleteDraft(id: number): boolean {
    return this.s.deleteDraft.run(id).changes === 1
  }

  markSent(ids: number[], at: string): void {
    for (const id of ids) this.s.markSent.run(at, id)
  }

  markResolved(id: number, at: string, commit: string): void {
    this.s.markResolved.run(at, commit, id)
  }

  /** Sent comments not resolved yet, per task: what the card counts as open. */
  openCounts(taskIds: number[]): Map<number, number> {
    if (!taskIds.length) return new Map()
    return new Map(this.s.openCounts.all(JSON.stringify(taskIds)).map((r) => [r.task_id, r.n]))
  }
}
