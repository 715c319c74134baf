/**
 * Several attempts (issue 33, the review loop): "Try it with…" runs one task on 2–4 members at once. Each attempt is a
 * task of its own (own branch and tree, own reports) linked to the task it tries (`attempt_of`). Picking one moves its
 * branch, tree, artifact and reports to the original task, whose `picked_attempt` then names it; the others are
 * archived and their trees removed.
 */
export const up = `
ALTER TABLE tasks ADD COLUMN attempt_of INTEGER REFERENCES tasks(id);
ALTER TABLE tasks ADD COLUMN picked_attempt INTEGER REFERENCES tasks(id);
CREATE INDEX tasks_by_attempt_of ON tasks (attempt_of) WHERE attempt_of IS NOT NULL;
`
