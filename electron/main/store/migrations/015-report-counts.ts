/**
 * Schema v15 (reports.page costs its page, not every report ever filed): the totals the Reports panel shows are
 * kept by triggers, exact, and an edit updates them in proportion to what it changed.
 *
 * - report_counts: per scope, the reports and the stale reports. Scopes: '' (the workspace), 'a<author>',
 *   'k<kind>', 'a<author>k<kind>' (author 0: reports without one), the filters reports.page offers besides a task.
 * - Stale is the hard figure: a report is stale while any of its pins (report_pins, 012) is on a content other than
 *   its decision's current one, and one edit can stale 100,000 reports. Per report it cannot be kept without
 *   writing each of those reports. So reports are grouped by signature (sigs): their author, kind and the exact set
 *   of (decision, content) pairs they are pinned to, canonical text `d:fp,d:fp` in order. A report's pins never
 *   change after it is submitted, so a signature is a fixed set; every report of a signature is stale together.
 *   sigs.stale_pins counts the signature's pairs that are not current; sig_pins lists the pairs by decision.
 *   An edit of d from A to B adds 1 to stale_pins of the signatures with (d, A), takes 1 from those with (d, B),
 *   and moves the reports of each signature that crosses 0 in or out of the stale counts of its four scopes: a
 *   report counted once however many of its pins are stale, and the edit writes one row per signature it
 *   touches, not per report. Signatures are few (the reports submitted between two edits against the same
 *   decisions, per author and kind, share one); their number is bounded by the reports, reached only if every
 *   report pins a different combination of contents.
 * - report_sig: each report's signature (prev: the one before its last pin, read by the pin trigger); by signature,
 *   the stale (or valid) reports newest first are a few index ranges, one per signature.
 * Reports, pins and decisions are never deleted, reports never change author or kind; the triggers rely on it.
 */
/**
 * The pin trigger's statements (NEW: the pin): the report moves to the signature of its pins as they are now (prev:
 * the one it leaves), and that signature's pairs are listed by decision. Migration 018 recreates the trigger with them.
 */
export const toPinsSignature = `  UPDATE report_sig SET prev = sig_id, sig_id = (
      SELECT n.id FROM sigs g JOIN sigs n ON n.author_id = g.author_id AND n.kind = g.kind
      WHERE g.id = report_sig.sig_id
        AND n.pins = (SELECT group_concat(p.decision_id || ':' || p.fingerprint, ',' ORDER BY p.decision_id, p.fingerprint) FROM report_pins p WHERE p.report_id = NEW.report_id))
    WHERE report_id = NEW.report_id;
  INSERT OR IGNORE INTO sig_pins SELECT p.decision_id, p.fingerprint, s.sig_id FROM report_pins p JOIN report_sig s ON s.report_id = p.report_id WHERE p.report_id = NEW.report_id;`

export const up = `
CREATE TABLE sigs (
  id INTEGER PRIMARY KEY,
  author_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  pins TEXT NOT NULL,
  reports INTEGER NOT NULL,
  stale_pins INTEGER NOT NULL,
  UNIQUE (author_id, kind, pins)
) STRICT;
CREATE TABLE sig_pins (
  decision_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  sig_id INTEGER NOT NULL,
  PRIMARY KEY (decision_id, fingerprint, sig_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE report_sig (
  report_id INTEGER PRIMARY KEY,
  sig_id INTEGER NOT NULL,
  prev INTEGER
) STRICT;
CREATE TABLE report_counts (
  scope TEXT PRIMARY KEY,
  reports INTEGER NOT NULL,
  stale INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX report_pins_by_report ON report_pins(report_id, decision_id, fingerprint);
CREATE INDEX report_sig_by_sig ON report_sig(sig_id, report_id);

-- The four scopes a signature's reports count in.
CREATE VIEW sig_scopes AS
  SELECT g.id AS sig_id, CASE x.column1 WHEN 0 THEN '' WHEN 1 THEN 'a' || g.author_id WHEN 2 THEN 'k' || g.kind ELSE 'a' || g.author_id || 'k' || g.kind END AS scope
  FROM sigs g, (VALUES (0), (1), (2), (3)) x;

-- Backfill.
CREATE TEMP TABLE report_keys AS
  SELECT r.id AS report_id, coalesce(r.author_id, 0) AS author_id, r.kind AS kind,
    coalesce((SELECT group_concat(p.decision_id || ':' || p.fingerprint, ',' ORDER BY p.decision_id, p.fingerprint) FROM report_pins p WHERE p.report_id = r.id), '') AS pins
  FROM reports r;
INSERT INTO sigs (author_id, kind, pins, reports, stale_pins) SELECT author_id, kind, pins, count(*), 0 FROM report_keys GROUP BY author_id, kind, pins;
INSERT INTO report_sig (report_id, sig_id) SELECT k.report_id, g.id FROM report_keys k JOIN sigs g ON g.author_id = k.author_id AND g.kind = k.kind AND g.pins = k.pins;
DROP TABLE report_keys;
INSERT OR IGNORE INTO sig_pins SELECT p.decision_id, p.fingerprint, s.sig_id FROM report_pins p JOIN report_sig s ON s.report_id = p.report_id;
UPDATE sigs SET stale_pins = (SELECT count(*) FROM sig_pins sp JOIN decisions d ON d.id = sp.decision_id WHERE sp.sig_id = sigs.id AND sp.fingerprint <> d.fingerprint);
INSERT INTO report_counts (scope, reports, stale)
  SELECT v.scope, sum(g.reports), sum(CASE WHEN g.stale_pins > 0 THEN g.reports ELSE 0 END) FROM sig_scopes v JOIN sigs g ON g.id = v.sig_id GROUP BY v.scope;

-- A new report has no pins yet: the empty signature of its author and kind.
CREATE TRIGGER reports_counts AFTER INSERT ON reports BEGIN
  INSERT INTO sigs (author_id, kind, pins, reports, stale_pins) VALUES (coalesce(NEW.author_id, 0), NEW.kind, '', 1, 0)
    ON CONFLICT (author_id, kind, pins) DO UPDATE SET reports = reports + 1;
  INSERT INTO report_sig (report_id, sig_id) SELECT NEW.id, id FROM sigs WHERE author_id = coalesce(NEW.author_id, 0) AND kind = NEW.kind AND pins = '';
  INSERT INTO report_counts (scope, reports, stale) SELECT scope, 1, 0 FROM sig_scopes WHERE sig_id = (SELECT sig_id FROM report_sig WHERE report_id = NEW.id)
    ON CONFLICT (scope) DO UPDATE SET reports = reports + 1;
END;

-- A report gains a pin: it moves from its signature to the one with that pair added (created if new, with its
-- stale pairs counted from the decisions), and its scopes' stale counts follow if the two differ.
CREATE TRIGGER report_pins_counts AFTER INSERT ON report_pins BEGIN
  INSERT INTO sigs (author_id, kind, pins, reports, stale_pins)
    SELECT g.author_id, g.kind,
      (SELECT group_concat(p.decision_id || ':' || p.fingerprint, ',' ORDER BY p.decision_id, p.fingerprint) FROM report_pins p WHERE p.report_id = NEW.report_id),
      0,
      (SELECT count(*) FROM report_pins p JOIN decisions d ON d.id = p.decision_id WHERE p.report_id = NEW.report_id AND p.fingerprint <> d.fingerprint)
    FROM report_sig s JOIN sigs g ON g.id = s.sig_id WHERE s.report_id = NEW.report_id
    ON CONFLICT (author_id, kind, pins) DO NOTHING;
${toPinsSignature}
  UPDATE report_counts SET stale = stale
      + (SELECT (n.stale_pins > 0) - (o.stale_pins > 0) FROM report_sig s JOIN sigs n ON n.id = s.sig_id JOIN sigs o ON o.id = s.prev WHERE s.report_id = NEW.report_id)
    WHERE scope IN (SELECT v.scope FROM report_sig s JOIN sig_scopes v ON v.sig_id = s.sig_id WHERE s.report_id = NEW.report_id);
  UPDATE sigs SET reports = reports - 1 WHERE id = (SELECT prev FROM report_sig WHERE report_id = NEW.report_id);
  UPDATE sigs SET reports = reports + 1 WHERE id = (SELECT sig_id FROM report_sig WHERE report_id = NEW.report_id);
END;

-- An edit: the signatures pinned to the content it left gain a stale pair, those pinned to the content it
-- returns to lose one; the reports of each that crosses 0 move in or out of the stale counts.
CREATE TRIGGER decisions_report_counts AFTER UPDATE OF fingerprint ON decisions WHEN OLD.fingerprint <> NEW.fingerprint BEGIN
  INSERT INTO report_counts (scope, reports, stale)
    SELECT v.scope, 0, sum(g.reports) FROM sig_pins sp JOIN sigs g ON g.id = sp.sig_id JOIN sig_scopes v ON v.sig_id = g.id
    WHERE sp.decision_id = NEW.id AND sp.fingerprint = OLD.fingerprint AND g.stale_pins = 0 AND g.reports > 0 GROUP BY v.scope
    ON CONFLICT (scope) DO UPDATE SET stale = stale + excluded.stale;
  UPDATE sigs SET stale_pins = stale_pins + 1 WHERE id IN (SELECT sig_id FROM sig_pins WHERE decision_id = NEW.id AND fingerprint = OLD.fingerprint);
  INSERT INTO report_counts (scope, reports, stale)
    SELECT v.scope, 0, -sum(g.reports) FROM sig_pins sp JOIN sigs g ON g.id = sp.sig_id JOIN sig_scopes v ON v.sig_id = g.id
    WHERE sp.decision_id = NEW.id AND sp.fingerprint = NEW.fingerprint AND g.stale_pins = 1 AND g.reports > 0 GROUP BY v.scope
    ON CONFLICT (scope) DO UPDATE SET stale = stale + excluded.stale;
  UPDATE sigs SET stale_pins = stale_pins - 1 WHERE id IN (SELECT sig_id FROM sig_pins WHERE decision_id = NEW.id AND fingerprint = NEW.fingerprint);
END;
`
