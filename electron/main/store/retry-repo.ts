import type { Db } from './connection'
import type { StepRow } from './steps-repo'

/** What sessions.retry reads: the member's latest turn (its first step starts it: turn_id = id). */
export class RetryRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      lastTurnStart: db.prepare<[number, number], StepRow>(
        'SELECT * FROM steps WHERE member_id = ? AND id > ? AND turn_id = id ORDER BY id DESC LIMIT 1',
      ),
    }
  }

  /** The step that started the member's latest turn in the current conversation (after `after`). */
  lastTurnStart(memberId: number, after: number): StepRow | undefined {
    return this.s.lastTurnStart.get(memberId, after)
  }
}
