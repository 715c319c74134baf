/**
 * Schema v17 (an edit writes its flagged tasks once, not twice): the tasks an edit flagged are kept with the
 * edit's record, as one JSON array in decision_impacts.tasks ([task, status before, status after, flag,
 * assignee] in key order), instead of one impact_tasks row per task written and then joined to update the
 * tasks. The edit updates its tasks in one set-based statement; decisions.impact pages the array.
 */
export const up = `
ALTER TABLE decision_impacts ADD COLUMN tasks TEXT NOT NULL DEFAULT '[]';
UPDATE decision_impacts SET tasks = coalesce((
  SELECT json_group_array(json_array(task_id, old_status, status, flag, assignee_id)) FROM
    (SELECT * FROM impact_tasks i WHERE i.decision_id = decision_impacts.decision_id AND i.version = decision_impacts.version ORDER BY task_id)
), '[]');
DROP TABLE impact_tasks;
`
