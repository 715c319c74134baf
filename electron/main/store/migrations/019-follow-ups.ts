/**
 * Schema: follow-ups that do not pile up (issue 30). task_follow_ups records which merged task, for which decision,
 * a follow-up task brings in line (before, only the event log said so). A merged task's link now keeps the content
 * it was merged on: the follow-up no longer re-pins it, so a later edit back to that content is recognised.
 *
 * Backfill: the follow-ups named by the log's task.created events. Their merged tasks had been re-pinned to each
 * follow-up's version; each gets back the content of the version before its first follow-up (the content it was
 * merged on, as long as no edit was left without a follow-up).
 */
export const up = `
CREATE TABLE task_follow_ups (
  task_id INTEGER PRIMARY KEY REFERENCES tasks(id),
  of_task_id INTEGER NOT NULL REFERENCES tasks(id),
  decision_id INTEGER NOT NULL REFERENCES decisions(id)
) STRICT;
CREATE INDEX task_follow_ups_of ON task_follow_ups(of_task_id, decision_id);

INSERT OR IGNORE INTO task_follow_ups (task_id, of_task_id, decision_id)
  SELECT json_extract(e.payload, '$.taskId'), json_extract(e.payload, '$.followUpOf'), json_extract(e.payload, '$.decisionId')
  FROM events e
  WHERE e.type = 'task.created' AND json_extract(e.payload, '$.followUpOf') IS NOT NULL
    AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = json_extract(e.payload, '$.taskId'))
    AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = json_extract(e.payload, '$.followUpOf'))
    AND EXISTS (SELECT 1 FROM decisions d WHERE d.id = json_extract(e.payload, '$.decisionId'))
  ORDER BY e.id;

UPDATE task_links AS l SET
  pinned_version = r.version,
  pinned_fingerprint = r.fingerprint
FROM (
  SELECT f.of_task_id AS task_id, f.decision_id, min(json_extract(e.payload, '$.version')) - 1 AS before
  FROM task_follow_ups f JOIN events e ON e.type = 'task.created' AND json_extract(e.payload, '$.taskId') = f.task_id
  GROUP BY f.of_task_id, f.decision_id
) AS first
JOIN decision_revisions r ON r.decision_id = first.decision_id AND r.version = first.before
WHERE l.task_id = first.task_id AND l.decision_id = first.decision_id;
`
