/**
 * Schema v19 (issue 30: code moves too): what Concord knows of the base branch under each task's tree.
 *
 * - tree_bases: every base commit a task's tree rested on, from the one it branched from (task_branches.base_commit,
 *   copied here for the trees that exist) to each later update of it; task_branches.base_commit stays the current one.
 * - base_checks: per task with a tree, the last check of its commit against the base branch's head: how far behind,
 *   the files both sides changed (each with the merged tasks, or the user's own commits, that changed it on the base
 *   side), the paths a trial merge conflicts in (NULL: clean, or not known on a git without merge-tree --write-tree),
 *   and whether merging it would land exactly the tree its commit has (lands_as_checked: a fast-forward, or a base
 *   whose changes leave the tree as it was checked). Written in one transaction per move, read by the readiness rule.
 * - base_seen: the base branch's head as Concord last saw it, so a move made while Concord was closed is noticed at
 *   the next open.
 */
export const up = `
CREATE TABLE tree_bases (
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  base_commit TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (task_id, base_commit)
) STRICT, WITHOUT ROWID;
INSERT INTO tree_bases (task_id, base_commit, at) SELECT task_id, base_commit, created_at FROM task_branches;

CREATE TABLE base_checks (
  task_id INTEGER PRIMARY KEY REFERENCES tasks(id),
  base_branch TEXT NOT NULL,
  base_head TEXT NOT NULL,
  task_commit TEXT NOT NULL,
  behind INTEGER NOT NULL,
  overlaps TEXT NOT NULL DEFAULT '[]',
  conflicts TEXT,
  lands_as_checked INTEGER NOT NULL,
  merge_tree INTEGER NOT NULL DEFAULT 1,
  checked_at TEXT NOT NULL
) STRICT;

CREATE TABLE base_seen (
  branch TEXT PRIMARY KEY,
  head TEXT NOT NULL,
  seen_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`
