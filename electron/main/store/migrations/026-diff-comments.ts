/**
 * Comments on a task's diff (issue 33, the review loop): the user's notes on a line or a range of lines of one file,
 * made on one commit of the task (the head the Changes view showed), batched as drafts and sent to the assignee as one
 * message. `side` says which side of the diff the lines number: 'new' (the head) or 'old' (the base). A sent comment
 * is resolved when a later delivery changes the lines it is on (resolved_commit: that delivery).
 */
export const up = `
CREATE TABLE diff_comments (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  side TEXT NOT NULL,
  commit_sha TEXT NOT NULL,
  quoted TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  sent_at TEXT,
  resolved_at TEXT,
  resolved_commit TEXT,
  CHECK (end_line >= start_line AND start_line >= 1),
  CHECK (state IN ('draft', 'sent', 'resolved')),
  CHECK (side IN ('new', 'old'))
) STRICT;
CREATE INDEX diff_comments_task ON diff_comments (task_id, state);
`
