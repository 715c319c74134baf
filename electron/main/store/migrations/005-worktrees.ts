/**
 * Schema: a git branch and worktree per task, and the files each turn changed.
 * - task_branches: the task's branch (concord/T-3-slug), its worktree while it exists, the commit it started from,
 *   its head as last seen, and the merge that landed it in the base branch.
 * - steps.changes: on the last step of a turn, the files the turn changed in its tree (JSON [{path, status}]).
 */
export const up = `
CREATE TABLE task_branches (
  task_id INTEGER PRIMARY KEY REFERENCES tasks(id),
  branch TEXT NOT NULL UNIQUE,
  worktree TEXT,
  base_commit TEXT NOT NULL,
  head TEXT NOT NULL,
  merged_commit TEXT,
  merged_at TEXT,
  created_at TEXT NOT NULL
) STRICT;
ALTER TABLE steps ADD COLUMN changes TEXT;
`
