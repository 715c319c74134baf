/**
 * Schema v10: full-text search over what was said in the sessions (FTS5, external content over steps).
 *
 * Indexed: the human's and members' messages, model replies, notices, plans and errors, once final. A
 * streaming reply is indexed when it stops streaming (its text is rewritten every flush: indexing each
 * flush would churn the index for text that is about to change). Tool results are left out: they are
 * file contents and command output, which would bury the conversation.
 *
 * The index's content is the view of exactly those steps, so FTS5's integrity-check holds it to them.
 * The update trigger removes the old entry before adding the new one in one body: with external content
 * the 'delete' must see exactly the indexed text, and two triggers would fire in an unspecified order.
 */
const indexed = (r: 'new' | 'old') =>
  `${r}.kind IN ('user','message','model','notice','plan','error') AND ${r}.status <> 'streaming' AND ${r}.text <> ''`

export const up = `
CREATE VIEW steps_searchable AS SELECT id, text FROM steps WHERE ${indexed('new').replaceAll('new.', '')};
CREATE VIRTUAL TABLE steps_fts USING fts5(text, content = 'steps_searchable', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER steps_fts_insert AFTER INSERT ON steps WHEN ${indexed('new')} BEGIN
  INSERT INTO steps_fts (rowid, text) VALUES (new.id, new.text);
END;

CREATE TRIGGER steps_fts_update AFTER UPDATE OF text, status ON steps BEGIN
  INSERT INTO steps_fts (steps_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE ${indexed('old')};
  INSERT INTO steps_fts (rowid, text) SELECT new.id, new.text WHERE ${indexed('new')};
END;

CREATE TRIGGER steps_fts_delete AFTER DELETE ON steps WHEN ${indexed('old')} BEGIN
  INSERT INTO steps_fts (steps_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

INSERT INTO steps_fts (rowid, text) SELECT id, text FROM steps_searchable;
`
