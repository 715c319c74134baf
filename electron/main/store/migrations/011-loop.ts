/**
 * Schema v11 (the loop closes itself): the turns Concord started on its own for a flagged member or the author of
 * evidence made stale. `trigger` names the change that caused it (task, decision version or delivered commit), so
 * one change starts at most one turn per member, across restarts too.
 */
export const up = `
CREATE TABLE auto_turns (
  id INTEGER PRIMARY KEY,
  member_id INTEGER NOT NULL REFERENCES members(id),
  task_id INTEGER REFERENCES tasks(id),
  trigger TEXT NOT NULL,
  step_id INTEGER,
  created_at TEXT NOT NULL,
  UNIQUE (member_id, trigger)
) STRICT;
`
