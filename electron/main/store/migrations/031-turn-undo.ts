/**
 * Undo a turn (issue 35).
 *
 * - steps.checkpoint, on a turn's first step: where its task's tree was before it ran, JSON {task, commit, tree, base}
 *   — the commit HEAD was at, the tree object of everything in the tree then (committed or not; a snapshot in
 *   Concord's own object store) and the task's base then. Only turns that run in a task's own tree have one.
 * - steps.undone, on the same step once the turn is undone: JSON {at, commit, keptRef, keptCommit, exact} — the commit
 *   the tree is back at, and where what was in the tree at the undo is kept (a ref in the task's tree).
 * - steps.undone_told: the turn at whose start the member was told (its brief says so during that turn).
 * - undone_commits: the commits an undo took off a task's branch. A report on one of them offers no delivery and a
 *   delivery of one is refused: the tree they checked is not the task's any more.
 */
export const up = `
ALTER TABLE steps ADD COLUMN checkpoint TEXT;
ALTER TABLE steps ADD COLUMN undone TEXT;
ALTER TABLE steps ADD COLUMN undone_told INTEGER;
CREATE INDEX steps_checkpoints ON steps(id) WHERE checkpoint IS NOT NULL;
-- What the brief reads before every model call, and each turn's start writes: a member's turns undone, by when told.
CREATE INDEX steps_undone ON steps(member_id, undone_told) WHERE undone IS NOT NULL;
CREATE TABLE undone_commits (
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  commit_sha TEXT NOT NULL,
  turn_id INTEGER NOT NULL REFERENCES steps(id),
  PRIMARY KEY (task_id, commit_sha)
) STRICT;
`
