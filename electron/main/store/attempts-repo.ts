import type { Db } from './connection'
import type { TaskRow } from './tasks-repo'

/** Where an attempt's turns spent their tokens and time (task_usage, kept by the triggers of migration 008). */
export interface AttemptWork {
  input: number | null
  output: number | null
  first_step: string | null
  last_step: string | null
}

/**
 * Several attempts at one task (migration 028): each attempt is a task linked to the one it tries (attempt_of). Its
 * requirement is copied from the original when it is made; picking one moves its branch, tree, reports and comments to
 * the original task.
 */
export class AttemptsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare<{ original: number; assignee: number; at: string }>(
        `INSERT INTO tasks (title, spec, acceptance_criteria, status, assignee_id, required_reports, created_at, updated_at, attempt_of)
         SELECT title, spec, acceptance_criteria, 'todo', @assignee, required_reports, @at, @at, id FROM tasks WHERE id = @original`,
      ),
      copyLinks: db.prepare<[number, number]>(
        `INSERT INTO task_links (decision_id, task_id, pinned_version, pinned_fingerprint)
         SELECT decision_id, ?, pinned_version, pinned_fingerprint FROM task_links WHERE task_id = ?`,
      ),
      copyBlockers: db.prepare<[number, number]>(
        'INSERT INTO task_blockers (task_id, blocker_id) SELECT ?, blocker_id FROM task_blockers WHERE task_id = ?',
      ),
      of: db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE attempt_of = ? ORDER BY id'),
      counts: db.prepare<[], { id: number; n: number }>(
        'SELECT attempt_of AS id, count(*) AS n FROM tasks WHERE attempt_of IS NOT NULL GROUP BY attempt_of',
      ),
      work: db.prepare<[number, number], AttemptWork>(
        `SELECT u.input, u.output, s.first_step, s.last_step
         FROM (SELECT min(started_at) AS first_step, max(coalesce(ended_at, started_at)) AS last_step FROM steps WHERE task_id = ?) s
         LEFT JOIN task_usage u ON u.task_id = ?`,
      ),
      setPicked: db.prepare<[number, string, number]>(
        'UPDATE tasks SET picked_attempt = ?, version = version + 1, updated_at = ? WHERE id = ?',
      ),
      moveBranch: db.prepare<[number, number]>('UPDATE task_branches SET task_id = ? WHERE task_id = ?'),
      moveBases: db.prepare<[number, number]>('UPDATE tree_bases SET task_id = ? WHERE task_id = ?'),
      moveReports: db.prepare<[number, number]>('UPDATE reports SET task_id = ? WHERE task_id = ?'),
      moveBasis: db.prepare<[number, number]>('UPDATE report_basis SET task_id = ? WHERE task_id = ?'),
      moveComments: db.prepare<[number, number]>('UPDATE diff_comments SET task_id = ? WHERE task_id = ?'),
      moveBaseCheck: db.prepare<[number, number]>('UPDATE base_checks SET task_id = ? WHERE task_id = ?'),
      dropLinks: db.prepare<[number]>('DELETE FROM task_links WHERE task_id = ?'),
      working: db.prepare<[number], { member_id: number }>(
        "SELECT DISTINCT member_id FROM steps WHERE status IN ('streaming', 'running', 'waiting_approval') AND task_id = ?",
      ),
    }
  }

  /** A new attempt at `original` by `assignee`: its title, spec, criteria, required reports, links and blockers. */
  insert(original: number, assignee: number, at: string): number {
    const id = Number(this.s.insert.run({ original, assignee, at }).lastInsertRowid)
    this.s.copyLinks.run(id, original)
    this.s.copyBlockers.run(id, original)
    return id
  }

  of(original: number): TaskRow[] {
    return this.s.of.all(original)
  }

  /** How many attempts each task has had (tasks with none are left out). */
  counts(): Map<number, number> {
    return new Map(this.s.counts.all().map((r) => [r.id, r.n]))
  }

  work(attempt: number): AttemptWork {
    return this.s.work.get(attempt, attempt) ?? { input: null, output: null, first_step: null, last_step: null }
  }

  /** The members with a step in flight on one of these tasks (a turn that is working on it now). */
  workingOn(taskIds: number[]): number[] {
    return [...new Set(taskIds.flatMap((id) => this.s.working.all(id).map((r) => r.member_id)))]
  }

  /**
   * The picked attempt's work becomes the original's: its branch and tree, the bases it rested on, its reports (with
   * their basis), its diff comments and its last base check; the original's links become the attempt's (the pins its
   * work was aligned with). The caller copies the status, assignee and artifact. Part of the caller's transaction.
   */
  moveWork(attempt: number, original: number, at: string): void {
    for (const s of [
      this.s.moveBranch,
      this.s.moveBases,
      this.s.moveReports,
      this.s.moveBasis,
      this.s.moveComments,
      this.s.moveBaseCheck,
    ])
      s.run(original, attempt)
    this.s.dropLinks.run(original)
    this.s.copyLinks.run(original, attempt)
    this.s.setPicked.run(attempt, at, original)
  }
}
