/**
 * Schema v23 (issue 31: a merged task's Changes showed "0 files changed"): task_branches.merged_base, the base
 * branch's head the merge was made on. After a merge the task's commit is in the base branch, so only this says where
 * its change began as merged (a fast-forward leaves no merge commit whose first parent would). NULL for merges made
 * before it was kept.
 */
export const up = `
ALTER TABLE task_branches ADD COLUMN merged_base TEXT;
`
