/**
 * Verified merges (issue 30): the merges the user asked for that wait until the tree that would land was checked.
 *
 * - merge_queue: one row per queued task, in order (position), with who asked for it (queued_by: a member, NULL for
 *   the human), the strategy, and where it is (state, and a sentence saying what it waits for). A row is removed when
 *   the task lands, or when the user takes it out (tasks.unqueueMerge). Kept in the workspace's file, so a queue
 *   survives a restart: the next start resumes it.
 * - review_carries: a clean update of a task's branch that changed none of the task's own files (no file in common
 *   with the base's move) carries the reviews of the head before it over to the new head (from_commit → to_commit):
 *   the task's own diff is unchanged, so what was reviewed still holds; the test is run again on the new tree.
 */
export const up = `
CREATE TABLE merge_queue (
  task_id INTEGER PRIMARY KEY REFERENCES tasks(id),
  position INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  queued_by INTEGER REFERENCES members(id),
  queued_at TEXT NOT NULL,
  state TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX merge_queue_position ON merge_queue (position);

CREATE TABLE review_carries (
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  to_commit TEXT NOT NULL,
  from_commit TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (task_id, to_commit)
) STRICT, WITHOUT ROWID;
`
