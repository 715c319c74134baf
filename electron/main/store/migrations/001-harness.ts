/** Schema v1: the harness of one workspace — members, decisions, proposals, tasks, reports, notices, events. */
export const up = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE members (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  authority TEXT NOT NULL CHECK (authority IN ('observer','proposer','decider')),
  instructions TEXT NOT NULL DEFAULT '',
  provider_kind TEXT CHECK (provider_kind IN ('openai','anthropic','openai-compatible')),
  provider_model TEXT,
  provider_base_url TEXT,
  approval TEXT NOT NULL DEFAULT 'ask' CHECK (approval IN ('ask','auto')),
  max_steps INTEGER NOT NULL DEFAULT 30,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE decisions (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  statement TEXT NOT NULL,
  rationale TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('proposed','accepted','rejected','superseded')),
  version INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  source_message_id TEXT,
  supersedes INTEGER REFERENCES decisions(id),
  superseded_by INTEGER REFERENCES decisions(id),
  created_by INTEGER REFERENCES members(id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE decision_revisions (
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  version INTEGER NOT NULL,
  title TEXT NOT NULL,
  statement TEXT NOT NULL,
  rationale TEXT NOT NULL,
  status TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  actor_id INTEGER REFERENCES members(id),
  editorial INTEGER NOT NULL DEFAULT 0,
  source_message_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (decision_id, version)
) STRICT, WITHOUT ROWID;
CREATE INDEX decision_revisions_by_content ON decision_revisions(decision_id, content_hash);

CREATE TABLE proposals (
  id INTEGER PRIMARY KEY,
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  author_id INTEGER REFERENCES members(id),
  base_version INTEGER NOT NULL,
  title TEXT,
  statement TEXT,
  rationale TEXT,
  status TEXT,
  reason TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','accepted','rejected')),
  decided_by INTEGER REFERENCES members(id),
  decided_at TEXT,
  decision_reason TEXT,
  source_message_id TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX proposals_by_decision ON proposals(decision_id);

CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  spec TEXT NOT NULL DEFAULT '',
  acceptance_criteria TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('todo','in_progress','delivered','accepted','blocked','cancelled')),
  assignee_id INTEGER REFERENCES members(id),
  flag TEXT CHECK (flag IN ('requirements_updated','needs_adjustment','needs_reverification')),
  artifact_commit TEXT,
  artifact_digest TEXT,
  required_reports TEXT NOT NULL DEFAULT '["test","review"]',
  version INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX tasks_by_assignee ON tasks(assignee_id);

-- A task depends on a decision as it read at pinned_version; the link is current while the
-- decision's fingerprint still equals pinned_fingerprint (so a revert makes it current again).
CREATE TABLE task_links (
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  pinned_version INTEGER NOT NULL,
  pinned_fingerprint TEXT NOT NULL,
  PRIMARY KEY (decision_id, task_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX task_links_by_task ON task_links(task_id);

CREATE TABLE task_blockers (
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  blocker_id INTEGER NOT NULL REFERENCES tasks(id),
  PRIMARY KEY (task_id, blocker_id),
  CHECK (task_id <> blocker_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE reports (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  author_id INTEGER REFERENCES members(id),
  kind TEXT NOT NULL CHECK (kind IN ('implementation','test','review')),
  verdict TEXT NOT NULL CHECK (verdict IN ('pass','fail','partial')),
  summary TEXT NOT NULL DEFAULT '',
  artifact_commit TEXT,
  artifact_digest TEXT,
  claim_count INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX reports_by_task ON reports(task_id, kind);

-- task_id, author_id and claim_count repeat the report's (immutable) head so that a decision
-- change reads everything it needs about the affected reports from this one index range.
CREATE TABLE report_basis (
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  report_id INTEGER NOT NULL REFERENCES reports(id),
  version INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  task_id INTEGER NOT NULL,
  author_id INTEGER,
  claim_count INTEGER NOT NULL,
  PRIMARY KEY (decision_id, report_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX report_basis_by_report ON report_basis(report_id);

CREATE TABLE claims (
  id INTEGER PRIMARY KEY,
  report_id INTEGER NOT NULL REFERENCES reports(id),
  ordinal INTEGER NOT NULL,
  text TEXT NOT NULL
) STRICT;
CREATE INDEX claims_by_report ON claims(report_id, ordinal);

-- A claim exercises a decision as it read at pinned_fingerprint; stale while they differ.
-- Keyed by decision, then report: a change reads its stale claims already grouped by report.
CREATE TABLE claim_links (
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  report_id INTEGER NOT NULL REFERENCES reports(id),
  claim_id INTEGER NOT NULL REFERENCES claims(id),
  pinned_fingerprint TEXT NOT NULL,
  PRIMARY KEY (decision_id, report_id, claim_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX claim_links_by_report ON claim_links(report_id);

CREATE TABLE notices (
  id INTEGER PRIMARY KEY,
  member_id INTEGER NOT NULL REFERENCES members(id),
  kind TEXT NOT NULL,
  decision_id INTEGER NOT NULL REFERENCES decisions(id),
  decision_version INTEGER NOT NULL,
  task_ids TEXT NOT NULL DEFAULT '[]',
  report_ids TEXT NOT NULL DEFAULT '[]',
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  delivered_at TEXT
) STRICT;
CREATE INDEX notices_pending ON notices(member_id, delivered_at);

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;
`
