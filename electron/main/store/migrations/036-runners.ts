/**
 * Where a member runs (issue 36): members.runner, the runner as JSON (shared/runners.ts: local, an SSH host or a
 * container image); NULL, the workspace's default runner (its settings' defaultRunner, this machine unless chosen).
 * Members made before runners existed keep NULL and so run where they always did, on this machine.
 */
export const up = `
ALTER TABLE members ADD COLUMN runner TEXT CHECK (runner IS NULL OR json_valid(runner));
`
