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

/**
 * The three triggers that keep `<table>_fts` (external content over the table's `columns`) as the table: an insert
 * adds the entry, an update replaces it (only when the text changed, with onlyWhenChanged), a delete removes it.
 */
function indexTriggers(table: string, columns: string[], { onlyWhenChanged = false } = {}): string {
  const fts = `${table}_fts`
  const cols = columns.join(', ')
  const of = (row: string) => columns.map((c) => `${row}.${c}`).join(', ')
  const add = `INSERT INTO ${fts} (rowid, ${cols}) VALUES (new.id, ${of('new')});`
  const remove = `INSERT INTO ${fts} (${fts}, rowid, ${cols}) VALUES ('delete', old.id, ${of('old')});`
  const when = onlyWhenChanged ? `\n  WHEN ${columns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')}` : ''
  return `CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN
  ${add}
END;
CREATE TRIGGER ${fts}_update AFTER UPDATE OF ${cols} ON ${table}${when} BEGIN
  ${remove}
  ${add}
END;
CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN
  ${remove}
END;`
}

export const up = `
CREATE VIRTUAL TABLE decisions_fts USING fts5(title, statement, rationale, content = 'decisions', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE tasks_fts USING fts5(title, spec, acceptance_criteria, content = 'tasks', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE reports_fts USING fts5(summary, content = 'reports', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE claims_fts USING fts5(text, content = 'claims', content_rowid = 'id', ${tokenize});
CREATE VIRTUAL TABLE revisions_fts USING fts5(text, decision_id UNINDEXED, version UNINDEXED, ${tokenize});

${indexTriggers('decisions', ['title', 'statement', 'rationale'], { onlyWhenChanged: true })}

CREATE TRIGGER revisions_fts_insert AFTER INSERT ON decision_revisions BEGIN
  INSERT INTO revisions_fts (text, decision_id, version)
    VALUES (${revisionText('new.')}, new.decision_id, new.version);
END;

${indexTriggers('tasks', ['title', 'spec', 'acceptance_criteria'], { onlyWhenChanged: true })}

${indexTriggers('reports', ['summary'])}

${indexTriggers('claims', ['text'])}

INSERT INTO decisions_fts (decisions_fts) VALUES ('rebuild');
INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');
INSERT INTO reports_fts (reports_fts) VALUES ('rebuild');
INSERT INTO claims_fts (claims_fts) VALUES ('rebuild');
INSERT INTO revisions_fts (text, decision_id, version)
  SELECT ${revisionText('')}, decision_id, version
  FROM decision_revisions ORDER BY decision_id, version;
`
