import type { Db } from './connection'
import { untouchedOnChange } from '../../../shared/task-rules'
import type { TaskRow } from './tasks-repo'

const untouched = untouchedOnChange.map((s) => `'${s}'`).join(', ')
const merged = (t: string) =>
  `EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = ${t}.id AND b.merged_at IS NOT NULL)`

/** A follow-up of (task, decision) still to land: not cancelled, not merged. */
const openFollowUp = `SELECT f.task_id FROM task_follow_ups f JOIN tasks ft ON ft.id = f.task_id
  WHERE f.of_task_id = t.id AND f.decision_id = l.decision_id AND ft.status <> 'cancelled' AND NOT ${merged('ft')}`

/**
 * A merged task whose code in the base branch implements a decision: linked to it, merged, and not superseded for
 * it by a merged follow-up (then the follow-up's code is what the base branch has). `pinned` is the content it was
 * merged on (its link is never re-pinned after the merge); `openFollowUps` the follow-ups still to land, key order.
 */
export interface Implementer {
  task: TaskRow
  pinnedVersion: number
  pinnedFingerprint: string
  openFollowUps: number[]
}

/** Which follow-up task brings which merged task in line with which decision (migration 019). */
export class FollowUpsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare('INSERT INTO task_follow_ups (task_id, of_task_id, decision_id) VALUES (?, ?, ?)'),
      // The implementers a change to content @to concerns: those behind it, and those at it with a follow-up open.
      implementers: db.prepare<
        { d: number; to: string },
        TaskRow & { l_version: number; l_fingerprint: string; open: string }
      >(
        `SELECT t.*, l.pinned_version AS l_version, l.pinned_fingerprint AS l_fingerprint,
           (SELECT coalesce(json_group_array(o.task_id ORDER BY o.task_id), '[]') FROM (${openFollowUp}) o) AS open
         FROM task_links l JOIN tasks t ON t.id = l.task_id
         WHERE l.decision_id = @d AND t.status NOT IN (${untouched}) AND ${merged('t')}
           AND NOT EXISTS (SELECT 1 FROM task_follow_ups f JOIN tasks ft ON ft.id = f.task_id
             WHERE f.of_task_id = t.id AND f.decision_id = l.decision_id AND ${merged('ft')})
           AND (l.pinned_fingerprint <> @to OR EXISTS (${openFollowUp}))
         ORDER BY t.id`,
      ),
    }
  }

  insert(taskId: number, ofTaskId: number, decisionId: number): void {
    this.s.insert.run(taskId, ofTaskId, decisionId)
  }

  /**
   * The merged tasks implementing the decision that a change to content `to` concerns: behind `to`, or at `to` with
   * a follow-up still open (the change made it obsolete). Reads only the decision's links.
   */
  implementers(decisionId: number, to: string): Implementer[] {
    return this.s.implementers.all({ d: decisionId, to }).map(({ l_version, l_fingerprint, open, ...task }) => ({
      task,
      pinnedVersion: l_version,
      pinnedFingerprint: l_fingerprint,
      openFollowUps: JSON.parse(open) as number[],
    }))
  }
}
