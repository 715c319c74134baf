/**
 * Claim verdicts (issue 33): a report's claims each say whether that behaviour held (pass), failed (fail) or held in
 * part (partial), so a failing report reads "R-8 failed: 2 of 5 claims" and the ask to fix carries the failing ones.
 * Claims filed before this had none: each takes its report's verdict, the only thing its author said of it.
 */
export const up = `
ALTER TABLE claims ADD COLUMN verdict TEXT NOT NULL DEFAULT 'pass' CHECK (verdict IN ('pass', 'fail', 'partial'));
UPDATE claims SET verdict = (SELECT r.verdict FROM reports r WHERE r.id = claims.report_id);
`
