/**
 * Schema v8 (scale): an edit costs what it changes, not what the decision or the session has behind it.
 * - claim_links_by_pin, report_basis_by_pin: the claims and basis entries pinned to one content of a decision,
 *   so an edit from → to reads only those pinned to `from` (made stale) or `to` (restored), never the older
 *   stale ones.
 * - decision_impacts: one row per normative edit (from/to fingerprints and the last report that existed), so
 *   decisions.impact derives the reports part from the immutable claim and basis pins; impact_tasks records
 *   the tasks the edit flagged (task state moves on afterwards, so that part is written, one row per task).
 * - member_usage, task_usage: token and step counters kept by triggers in the same statement as every step
 *   write, so metrics.get reads a few rows instead of scanning every step. A step counts when it reported
 *   usage or is a finished model reply (`unreported`: finished replies without usage). Backfilled here.
 */
const counts = `input_tokens IS NOT NULL OR (kind IN ('model','plan') AND status = 'done')`

/** The upserts that add (sign 1) or remove (sign -1) one step's contribution, for a trigger's NEW or OLD row. */
function contribution(row: 'NEW' | 'OLD', sign: 1 | -1): string {
  const c = `${row}.input_tokens IS NOT NULL OR (${row}.kind IN ('model','plan') AND ${row}.status = 'done')`
  const values = `${sign} * coalesce(${row}.input_tokens, 0), ${sign} * coalesce(${row}.output_tokens, 0), ${sign} * (${row}.input_tokens IS NULL), ${sign}`
  const set =
    'input = input + excluded.input, output = output + excluded.output, unreported = unreported + excluded.unreported, steps = steps + excluded.steps'
  return `
  INSERT INTO member_usage (member_id, input, output, unreported, steps) SELECT ${row}.member_id, ${values} WHERE ${c}
    ON CONFLICT (member_id) DO UPDATE SET ${set};
  INSERT INTO task_usage (task_id, input, output, unreported, steps) SELECT ${row}.task_id, ${values} WHERE ${row}.task_id IS NOT NULL AND (${c})
    ON CONFLICT (task_id) DO UPDATE SET ${set};`
}

export const up = `
CREATE INDEX claim_links_by_pin ON claim_links(decision_id, pinned_fingerprint, report_id, claim_id);
CREATE INDEX report_basis_by_pin ON report_basis(decision_id, fingerprint, report_id, task_id, author_id, claim_count);

CREATE TABLE decision_impacts (
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  version INTEGER NOT NULL,
  from_fingerprint TEXT NOT NULL,
  to_fingerprint TEXT NOT NULL,
  last_report_id INTEGER NOT NULL,
  PRIMARY KEY (decision_id, version)
) STRICT, WITHOUT ROWID;

CREATE TABLE impact_tasks (
  decision_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  old_status TEXT NOT NULL,
  status TEXT NOT NULL,
  flag TEXT NOT NULL,
  assignee_id INTEGER,
  PRIMARY KEY (decision_id, version, task_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE member_usage (
  member_id INTEGER PRIMARY KEY,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  unreported INTEGER NOT NULL,
  steps INTEGER NOT NULL
) STRICT;

CREATE TABLE task_usage (
  task_id INTEGER PRIMARY KEY,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  unreported INTEGER NOT NULL,
  steps INTEGER NOT NULL
) STRICT;

INSERT INTO member_usage SELECT member_id, coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), sum(input_tokens IS NULL), count(*)
  FROM steps WHERE ${counts} GROUP BY member_id;
INSERT INTO task_usage SELECT task_id, coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), sum(input_tokens IS NULL), count(*)
  FROM steps WHERE task_id IS NOT NULL AND (${counts}) GROUP BY task_id;

CREATE TRIGGER steps_usage_insert AFTER INSERT ON steps BEGIN${contribution('NEW', 1)}
END;
-- Streaming text updates only set text: this trigger does not fire for them.
CREATE TRIGGER steps_usage_update AFTER UPDATE OF member_id, task_id, kind, status, input_tokens, output_tokens ON steps BEGIN${contribution('OLD', -1)}${contribution('NEW', 1)}
END;
CREATE TRIGGER steps_usage_delete AFTER DELETE ON steps BEGIN${contribution('OLD', -1)}
END;
`
