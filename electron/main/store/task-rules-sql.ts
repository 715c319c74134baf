/**
 * The task rules of shared/task-rules.ts as SQL fragments, built from the same constants: what an edit of a
 * decision does to the tasks depending on it, and when a task is flagged. `t` is the alias of `tasks`.
 */
import {
  defaultFlagOnChange,
  flagOnChange,
  statusOnChange,
  untouchedOnChange,
  type TaskStatusValue,
} from '../../../shared/task-rules'

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ')

/** The flag a task gets when a decision it depends on changes (a stronger flag it already has is kept). */
export function flagOnChangeSql(t: string): string {
  const whens = flagOnChange.map(
    (r) => `WHEN ${t}.status IN (${list(r.statuses)}) OR ${t}.flag = '${r.flag}' THEN '${r.flag}'`,
  )
  return `CASE ${whens.join(' ')} ELSE '${defaultFlagOnChange}' END`
}

/** Its status after the change (an accepted task is delivered again). */
export function statusOnChangeSql(t: string): string {
  const moves = Object.entries(statusOnChange) as [TaskStatusValue, TaskStatusValue][]
  if (!moves.length) return `${t}.status`
  return `CASE ${t}.status ${moves.map(([from, to]) => `WHEN '${from}' THEN '${to}'`).join(' ')} ELSE ${t}.status END`
}

/** The tasks a change leaves alone whatever their links: cancelled and merged ones. */
export function touchedByChangeSql(t: string): string {
  return `${t}.status NOT IN (${list(untouchedOnChange)}) AND NOT EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = ${t}.id AND b.merged_at IS NOT NULL)`
}

/**
 * The one home of "a task is flagged": a flag, or a link pinned to content its decision no longer has — except a
 * merged task's link to a decision it has a follow-up for (not cancelled): the follow-up carries the change, and the
 * merged task keeps the content it was merged on.
 */
export function taskFlaggedSql(t: string): string {
  return `(${t}.flag IS NOT NULL OR EXISTS (SELECT 1 FROM task_links l JOIN decisions d ON d.id = l.decision_id
    WHERE l.task_id = ${t}.id AND l.pinned_fingerprint <> d.fingerprint
      AND NOT (EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = ${t}.id AND b.merged_at IS NOT NULL)
        AND EXISTS (SELECT 1 FROM task_follow_ups f JOIN tasks ft ON ft.id = f.task_id
          WHERE f.of_task_id = ${t}.id AND f.decision_id = l.decision_id AND ft.status <> 'cancelled'))))`
}
