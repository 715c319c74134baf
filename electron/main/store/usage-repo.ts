import type { Db } from './connection'

export interface UsageRow {
  id: number
  input: number
  output: number
  unreported: number
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
      tasks: db.prepare<[], UsageRow>(
        'SELECT task_id AS id, input, output, unreported FROM task_usage WHERE steps > 0 ORDER BY task_id',
      ),
    }
  }

  perMember(): UsageRow[] {
    return this.s.members.all()
  }

  perTask(): UsageRow[] {
    return this.s.tasks.all()
  }
}
