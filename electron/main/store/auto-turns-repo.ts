import type { Db } from './connection'
import type { StepRow } from './steps-repo'

export interface AutoTurnRow {
  id: number
  member_id: number
  task_id: number | null
  trigger: string
  step_id: number | null
  created_at: string
}

/** The turns Concord started by itself, one per member and trigger (schema v11). */
export class AutoTurnsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      claim: db.prepare(
        'INSERT OR IGNORE INTO auto_turns (member_id, task_id, trigger, created_at) VALUES (?, ?, ?, ?)',
      ),
      setStep: db.prepare('UPDATE auto_turns SET step_id = ? WHERE id = ?'),
      count: db.prepare<[], number>('SELECT count(*) FROM auto_turns WHERE step_id IS NOT NULL').pluck(),
      started: db.prepare<[number, number], AutoTurnRow & { step_id: number }>(
        'SELECT * FROM auto_turns WHERE step_id IS NOT NULL AND id < ? ORDER BY id DESC LIMIT ?',
      ),
      queued: db
        .prepare<[number], number>(
          "SELECT a.step_id FROM auto_turns a JOIN steps s ON s.id = a.step_id WHERE a.member_id = ? AND s.status = 'queued' ORDER BY a.id DESC LIMIT 1",
        )
        .pluck(),
      // The member's oldest queued step that is not one of Concord's own turns (the human's, a delegation's).
      nextNotAuto: db.prepare<[number], StepRow>(
        "SELECT * FROM steps s WHERE s.member_id = ? AND s.status = 'queued' AND NOT EXISTS (SELECT 1 FROM auto_turns a WHERE a.member_id = s.member_id AND a.step_id = s.id) ORDER BY s.id LIMIT 1",
      ),
    }
  }

  /** Records the trigger for the member; null when it already started (or joined) a turn. */
  claim(memberId: number, taskId: number | null, trigger: string, at: string): number | null {
    const r = this.s.claim.run(memberId, taskId, trigger, at)
    return r.changes === 1 ? Number(r.lastInsertRowid) : null
  }

  setStep(id: number, stepId: number): void {
    this.s.setStep.run(stepId, id)
  }

  /** The member's auto turn that has not started yet, if any: a new trigger joins it instead of queueing another. */
  queuedStep(memberId: number): number | undefined {
    return this.s.queued.get(memberId)
  }

  /** The member's next queued step passing over Concord's own turns (held while the workspace's budget is spent). */
  nextNotAuto(memberId: number): StepRow | undefined {
    return this.s.nextNotAuto.get(memberId)
  }

  /** The turns that started (those the figure counts), newest first, with an id below `beforeId`. */
  started(beforeId: number, limit: number): { rows: (AutoTurnRow & { step_id: number })[]; total: number } {
    return { rows: this.s.started.all(beforeId, limit), total: this.count() }
  }

  count(): number {
    return this.s.count.get() ?? 0
  }
}
