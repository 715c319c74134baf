import type { Db } from './connection'

export interface UsageRow {
  id: number
  input: number
  output: number
  unreported: number
}

/** A task's figures, with the title the Figures table names it by. */
export interface TaskUsageRow extends UsageRow {
  title: string
}

/**
 * Token and step figures per member and per task, kept by the triggers of migration 008 in the same
 * statement as every step write: reading them costs a row per member or task, not a scan of the steps.
 */
export class UsageRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      members: db.prepare<[], UsageRow>(
        'SELECT member_id AS id, input, output, unreported FROM member_usage WHERE steps > 0 ORDER BY member_id',
      ),
      tasks: db.prepare<[], TaskUsageRow>(
        `SELECT u.task_id AS id, t.title, u.input, u.output, u.unreported
         FROM task_usage u JOIN tasks t ON t.id = u.task_id WHERE u.steps > 0 ORDER BY u.task_id`,
      ),
    }
  }

  perMember(): UsageRow[] {
    return this.s.members.all()
  }

  perTask(): TaskUsageRow[] {
    return this.s.tasks.all()
  }
}
