/**
 * Schema v22 (issue 31: search finds decisions, tasks and reports, not only messages): full-text indexes over the
 * records, beside the session index of migrations 010/016 and with the same tokenizer and prefix indexes (the last
 * word of a query matches as a prefix).
 *
 * - decisions_fts, tasks_fts, reports_fts, claims_fts: external content over their tables (rowid = the row's id, so
 *   `D-3` is rowid 3 and a hit's text is read back through the primary key). The columns are the tables' own:
 *   title, statement, rationale; title, spec, acceptance_criteria; summary; a claim's text.
 * - revisions_fts: every revision of every decision (title, statement, rationale and the reason given), so that
 *   words a decision no longer says still find it ("history"). Its own content: decision_revisions has no rowid.
 *   Revisions are never changed once written.
 *
 * Kept by triggers, in the statement that writes the row (so in its transaction, whatever writes it: the harness,
 * an import, a bench's bare SQL). As in 010, an update removes the old entry and adds the new one in one body, and
 * only when the text changed: the repositories' updates set every column, and a decision's edit moves the status
 * and flag of every dependent task (an edit costs what it changes, migration 008), which must not rewrite their
 * index entries.
 * Reports and claims are written once (an insert each); a claim is its own entry rather than part of its report's,
 * so a report with many claims costs one index write per claim, not one rewrite of the report per claim.
 */
/** A revision as one text: its title, statement, rationale and the reason given, the empty ones left out. */
const revisionText = (r: string) =>
  `concat_ws(' — ', ${r}title, ${r}statement, nullif(${r}rationale, ''), nullif(${r}reason, ''))`

const tokenize = `tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4 5 6'`

export const up = `
CREATE VIRTUAL TABLE decisions_fts USING fts5(title, statement, rationale, content = 'decisions', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE tasks_fts USING fts5(title, spec, acceptance_criteria, content = 'tasks', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE reports_fts USING fts5(summary, content = 'reports', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE claims_fts USING fts5(text, content = 'claims', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE revisions_fts USING fts5(text, decision_id UNINDEXED, version UNINDEXED, ${tokenize});

CREATE TRIGGER decisions_fts_insert AFTER INSERT ON decisions BEGIN
  INSERT INTO decisions_fts (rowid, title, statement, rationale) VALUES (new.id, new.title, new.statement, new.rationale);
END;
CREATE TRIGGER decisions_fts_update AFTER UPDATE OF title, statement, rationale ON decisions
  WHEN old.title IS NOT new.title OR old.statement IS NOT new.statement OR old.rationale IS NOT new.rationale BEGIN
  INSERT INTO decisions_fts (decisions_fts, rowid, title, statement, rationale) VALUES ('delete', old.id, old.title, old.statement, old.rationale);
  INSERT INTO decisions_fts (rowid, title, statement, rationale) VALUES (new.id, new.title, new.statement, new.rationale);
END;
CREATE TRIGGER decisions_fts_delete AFTER DELETE ON decisions BEGIN
  INSERT INTO decisions_fts (decisions_fts, rowid, title, statement, rationale) VALUES ('delete', old.id, old.title, old.statement, old.rationale);
END;

CREATE TRIGGER revisions_fts_insert AFTER INSERT ON decision_revisions BEGIN
  INSERT INTO revisions_fts (text, decision_id, version)
    VALUES (${revisionText('new.')}, new.decision_id, new.version);
END;

CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts (rowid, title, spec, acceptance_criteria) VALUES (new.id, new.title, new.spec, new.acceptance_criteria);
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF title, spec, acceptance_criteria ON tasks
  WHEN old.title IS NOT new.title OR old.spec IS NOT new.spec OR old.acceptance_criteria IS NOT new.acceptance_criteria BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, title, spec, acceptance_criteria) VALUES ('delete', old.id, old.title, old.spec, old.acceptance_criteria);
  INSERT INTO tasks_fts (rowid, title, spec, acceptance_criteria) VALUES (new.id, new.title, new.spec, new.acceptance_criteria);
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, title, spec, acceptance_criteria) VALUES ('delete', old.id, old.title, old.spec, old.acceptance_criteria);
END;

CREATE TRIGGER reports_fts_insert AFTER INSERT ON reports BEGIN
  INSERT INTO reports_fts (rowid, summary) VALUES (new.id, new.summary);
END;
CREATE TRIGGER reports_fts_update AFTER UPDATE OF summary ON reports BEGIN
  INSERT INTO reports_fts (reports_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
  INSERT INTO reports_fts (rowid, summary) VALUES (new.id, new.summary);
END;
CREATE TRIGGER reports_fts_delete AFTER DELETE ON reports BEGIN
  INSERT INTO reports_fts (reports_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
END;

CREATE TRIGGER claims_fts_insert AFTER INSERT ON claims BEGIN
  INSERT INTO claims_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER claims_fts_update AFTER UPDATE OF text ON claims BEGIN
  INSERT INTO claims_fts (claims_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO claims_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER claims_fts_delete AFTER DELETE ON claims BEGIN
  INSERT INTO claims_fts (claims_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

INSERT INTO decisions_fts (decisions_fts) VALUES ('rebuild');
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
INSERT INTO reports_fts (reports_fts) VALUES ('rebuild');
INSERT INTO claims_fts (claims_fts) VALUES ('rebuild');
INSERT INTO revisions_fts (text, decision_id, version)
  SELECT ${revisionText('')}, decision_id, version
  FROM decision_revisions ORDER BY decision_id, version;
`
