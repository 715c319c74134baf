/**
 * Schema v09: archive, not lose. An archived member or task keeps its rows (sessions, reports, links, the
 * export); lists leave it out while archived_at is set, and restoring clears it.
 */
export const up = `
ALTER TABLE members ADD COLUMN archived_at TEXT;
ALTER TABLE tasks ADD COLUMN archived_at TEXT;
`
