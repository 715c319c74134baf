/**
 * Schema: what Concord was doing with a task's tree and the user's checkout when it stopped.
 * - task_branches.state: 'creating' from the moment the branch name is reserved until the tree is made and the
 *   branch is in the user's repository ('ready'); a crash in between is finished (idempotently) at the next use.
 * - task_branches.merging: set (JSON {head, at}) while a merge of the task into the user's checkout runs; a value
 *   left behind means Concord (and maybe git) was killed mid-merge, which the next start and the next merge report.
 */
export const up = `
ALTER TABLE task_branches ADD COLUMN state TEXT NOT NULL DEFAULT 'ready';
ALTER TABLE task_branches ADD COLUMN merging TEXT;
`
