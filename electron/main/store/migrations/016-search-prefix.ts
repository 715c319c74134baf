/**
 * Schema v16 (a search while typing costs its hits, not the index): the session search index of migration 010
 * gains prefix indexes for the first 1 to 6 characters of every word. The last word of a query matches as a
 * prefix; without them FTS5 merged the postings of every word starting with it (81 ms at 1M steps for a short
 * prefix), with them a prefix of up to 6 characters is one posting list read newest first, and a longer one
 * stands for few words. Costs: each indexed word is written 6 more times (about 30 µs per step instead of 5).
 * The triggers of 010 write to the table by name and carry on unchanged.
 */
export const up = `
DROP TABLE steps_fts;
CREATE VIRTUAL TABLE steps_fts USING fts5(text, content = 'steps_searchable', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4 5 6');
INSERT INTO steps_fts (steps_fts) VALUES ('rebuild');
`
