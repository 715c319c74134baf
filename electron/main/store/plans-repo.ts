import type { Db } from './connection'

export type PlanStateValue = 'pending' | 'approved' | 'changes_requested' | 'rejected'

export interface PlanRow {
  id: number
  task_id: number
  n: number
  body: string
  author_id: number | null
  state: PlanStateValue
  submitted_at: string
  comment: string | null
  decided_at: string | null
  decided_by: number | null
  rejected_to: 'todo' | 'cancelled' | null
}

export interface PlanDecision {
  state: Exclude<PlanStateValue, 'pending'>
  comment: string | null
  decided_at: string
  decided_by: number | null
  rejected_to: 'todo' | 'cancelled' | null
}

/** Plans of plan-first tasks, and the tasks' plan_first flag (migration 029). */
export class PlansRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      setPlanFirst: db.prepare<[number, number]>('UPDATE tasks SET plan_first = ? WHERE id = ?'),
      insert: db.prepare<[number, number, string, number | null, string]>(
        `INSERT INTO task_plans (task_id, n, body, author_id, state, submitted_at)
         VALUES (?, ?, ?, ?, 'pending', ?)`,
      ),
      get: db.prepare<[number], PlanRow>('SELECT * FROM task_plans WHERE id = ?'),
      ofTask: db.prepare<[number], PlanRow>('SELECT * FROM task_plans WHERE task_id = ? ORDER BY n'),
      latest: db.prepare<[number], PlanRow>('SELECT * FROM task_plans WHERE task_id = ? ORDER BY n DESC LIMIT 1'),
      latestAmong: db.prepare<[string], PlanRow>(
        `SELECT p.* FROM task_plans p
         JOIN (SELECT task_id, max(n) AS n FROM task_plans
               WHERE task_id IN (SELECT value FROM json_each(?)) GROUP BY task_id) l
         ON l.task_id = p.task_id AND l.n = p.n`,
      ),
      decide: db.prepare<[string, string | null, string, number | null, string | null, number]>(
        `UPDATE task_plans SET state = ?, comment = ?, decided_at = ?, decided_by = ?, rejected_to = ?
         WHERE id = ? AND state = 'pending'`,
      ),
      all: db.prepare<[], PlanRow>('SELECT * FROM task_plans ORDER BY task_id, n'),
      restore: db.prepare<Omit<PlanRow, 'id'>>(
        `INSERT INTO task_plans (task_id, n, body, author_id, state, submitted_at, comment, decided_at, decided_by, rejected_to)
         VALUES (@task_id, @n, @body, @author_id, @state, @submitted_at, @comment, @decided_at, @decided_by, @rejected_to)`,
      ),
    }
  }

  setPlanFirst(taskId: number, on: boolean): void {
    this.s.setPlanFirst.run(on ? 1 : 0, taskId)
  }

  /** A new pending plan, numbered after the task's last one. */
  insert(taskId: number, body: string, authorId: number | null, at: string): number {
    const n = (this.s.latest.get(taskId)?.n ?? 0) + 1
    return Number(this.s.insert.run(taskId, n, body, authorId, at).lastInsertRowid)
  }

  get(id: number): PlanRow | undefined {
    return this.s.get.get(id)
  }

  ofTask(taskId: number): PlanRow[] {
    return this.s.ofTask.all(taskId)
  }

  latest(taskId: number): PlanRow | undefined {
    return this.s.latest.get(taskId)
  }

  /** Each task's latest plan, for the cards. */
  latestAmong(taskIds: number[]): Map<number, PlanRow> {
    if (!taskIds.length) return new Map()
    return new Map(this.s.latestAmong.all(JSON.stringify(taskIds)).map((r) => [r.task_id, r]))
  }

  /** Decides a pending plan; false when it is not pending any more. */
  decide(id: number, d: PlanDecision): boolean {
    return this.s.decide.run(d.state, d.comment, d.decided_at, d.decided_by, d.rejected_to, id).changes === 1
  }

  /** Every plan of the workspace, for the export. */
  all(): PlanRow[] {
    return this.s.all.all()
  }

  /** Import: a plan as exported (its task and number). */
  restore(row: Omit<PlanRow, 'id'>): void {
    this.s.restore.run(row)
  }
}
