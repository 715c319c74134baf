/**
 * A plan before code (issue 33, the review loop).
 *
 * - tasks.plan_first: the task's assignee first writes a plan in a read-only tree, and writes code only once the user
 *   approved one.
 * - task_plans: every plan submitted for a task, numbered per task (n), with where it stands: pending (waiting for the
 *   user), approved, changes_requested (sent back with the user's comment; the member plans again) or rejected (the
 *   task went back to to-do or was cancelled: rejected_to). Kept as the task's history and in the export.
 */
export const up = `
ALTER TABLE tasks ADD COLUMN plan_first INTEGER NOT NULL DEFAULT 0 CHECK (plan_first IN (0, 1));
CREATE TABLE task_plans (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  n INTEGER NOT NULL,
  body TEXT NOT NULL,
  author_id INTEGER REFERENCES members(id),
  state TEXT NOT NULL,
  submitted_at TEXT NOT NULL,
  comment TEXT,
  decided_at TEXT,
  decided_by INTEGER REFERENCES members(id),
  rejected_to TEXT,
  CHECK (n >= 1 AND length(body) > 0),
  CHECK (state IN ('pending', 'approved', 'changes_requested', 'rejected')),
  CHECK (rejected_to IS NULL OR rejected_to IN ('todo', 'cancelled')),
  UNIQUE (task_id, n)
) STRICT;
`
