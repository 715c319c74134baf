/**
 * Schema v13 (approvals only where they matter):
 * - members.approval and steps.approval also take 'sandboxed' (ask only for what leaves the OS sandbox). SQLite
 *   cannot change a column's CHECK, so each column is renamed, added anew with the wider CHECK, copied and dropped
 *   (the column moves to the end of its table; every query names its columns). Existing members keep their policy.
 * - approval_rules: allow or deny a tool, a command prefix or a path glob, for one member or (member_id NULL) the
 *   whole team of the workspace.
 */
export const up = `
ALTER TABLE members RENAME COLUMN approval TO approval_v12;
ALTER TABLE members ADD COLUMN approval TEXT NOT NULL DEFAULT 'ask' CHECK (approval IN ('ask','sandboxed','auto'));
UPDATE members SET approval = approval_v12;
ALTER TABLE members DROP COLUMN approval_v12;

ALTER TABLE steps RENAME COLUMN approval TO approval_v12;
ALTER TABLE steps ADD COLUMN approval TEXT CHECK (approval IN ('ask','sandboxed','auto'));
UPDATE steps SET approval = approval_v12 WHERE approval_v12 IS NOT NULL;
ALTER TABLE steps DROP COLUMN approval_v12;

CREATE TABLE approval_rules (
  id INTEGER PRIMARY KEY,
  member_id INTEGER REFERENCES members(id),
  effect TEXT NOT NULL CHECK (effect IN ('allow','deny')),
  tool TEXT,
  command_prefix TEXT,
  path_glob TEXT,
  created_at TEXT NOT NULL,
  CHECK (tool IS NOT NULL OR command_prefix IS NOT NULL OR path_glob IS NOT NULL)
) STRICT;
CREATE INDEX approval_rules_by_member ON approval_rules(member_id);
`
