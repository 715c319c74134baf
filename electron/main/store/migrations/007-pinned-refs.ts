/**
 * Schema v07: pinned mentions. `steps.refs` holds what a step's text mentioned when it was stored, as
 * JSON `[{"key":"D-1","version":1},{"key":"T-2"}]` (a decision's version at that moment; tasks and
 * reports only resolved). A column on the row, not a table: a page of steps reads its pins with no
 * second query. NULL on steps written before this version (rendered unpinned).
 */
export const up = `
ALTER TABLE steps ADD COLUMN refs TEXT;
`
