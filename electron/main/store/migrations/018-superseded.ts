/**
 * Schema v18 (issue 22: a report superseded by a newer one of the same task, kind and author folds under it; the
 * Reports badge counts what still needs attention): reports.superseded_by, the next newer report of the same
 * (task, kind, author), set when that one is inserted and never changed after; and a third kept figure beside
 * migration 015's, report_counts.stale_live, the stale reports no newer report supersedes.
 *
 * - sigs.live: the signature's reports not superseded. A report is live from its insert until the next report of
 *   its line; it moves between signatures only while it gains pins (at submit), and an edit stales or restores
 *   every report of a signature together, so stale_live moves by sigs.live exactly where stale moves by
 *   sigs.reports. A supersede writes the one report it supersedes (the line's newest before it: the older ones
 *   were superseded already), its signature and its four scopes.
 * - reports_by_line (task, kind, author, id) finds that report with one index seek.
 * The three triggers of 015 are recreated with the live counts added (same statements otherwise).
 */
import { toPinsSignature } from './015-report-counts'

export const up = `
ALTER TABLE reports ADD COLUMN superseded_by INTEGER;
CREATE INDEX reports_by_line ON reports(task_id, kind, author_id, id);
UPDATE reports SET superseded_by = (SELECT min(n.id) FROM reports n
  WHERE n.task_id = reports.task_id AND n.kind = reports.kind AND n.author_id IS reports.author_id AND n.id > reports.id);
ALTER TABLE sigs ADD COLUMN live INTEGER NOT NULL DEFAULT 0;
ALTER TABLE report_counts ADD COLUMN stale_live INTEGER NOT NULL DEFAULT 0;
UPDATE sigs SET live = (SELECT count(*) FROM report_sig s JOIN reports r ON r.id = s.report_id WHERE s.sig_id = sigs.id AND r.superseded_by IS NULL);
UPDATE report_counts SET stale_live = coalesce((SELECT sum(g.live) FROM sig_scopes v JOIN sigs g ON g.id = v.sig_id WHERE v.scope = report_counts.scope AND g.stale_pins > 0), 0);

DROP TRIGGER reports_counts;
DROP TRIGGER report_pins_counts;
DROP TRIGGER decisions_report_counts;

-- A new report has no pins yet: the empty signature of its author and kind, live. The newest report of its line
-- before it (if any) is superseded: out of its signature's live reports, and of its scopes' stale_live if stale.
CREATE TRIGGER reports_counts AFTER INSERT ON reports BEGIN
  INSERT INTO sigs (author_id, kind, pins, reports, stale_pins, live) VALUES (coalesce(NEW.author_id, 0), NEW.kind, '', 1, 0, 1)
    ON CONFLICT (author_id, kind, pins) DO UPDATE SET reports = reports + 1, live = live + 1;
  INSERT INTO report_sig (report_id, sig_id) SELECT NEW.id, id FROM sigs WHERE author_id = coalesce(NEW.author_id, 0) AND kind = NEW.kind AND pins = '';
  INSERT INTO report_counts (scope, reports, stale) SELECT scope, 1, 0 FROM sig_scopes WHERE sig_id = (SELECT sig_id FROM report_sig WHERE report_id = NEW.id)
    ON CONFLICT (scope) DO UPDATE SET reports = reports + 1;
  UPDATE report_counts SET stale_live = stale_live - 1 WHERE scope IN (
    SELECT v.scope FROM report_sig s JOIN sigs g ON g.id = s.sig_id JOIN sig_scopes v ON v.sig_id = g.id
    WHERE g.stale_pins > 0 AND s.report_id = (SELECT max(id) FROM reports WHERE task_id = NEW.task_id AND kind = NEW.kind AND author_id IS NEW.author_id AND id < NEW.id AND superseded_by IS NULL));
  UPDATE sigs SET live = live - 1 WHERE id = (SELECT sig_id FROM report_sig WHERE report_id =
    (SELECT max(id) FROM reports WHERE task_id = NEW.task_id AND kind = NEW.kind AND author_id IS NEW.author_id AND id < NEW.id AND superseded_by IS NULL));
  UPDATE reports SET superseded_by = NEW.id WHERE id =
    (SELECT max(id) FROM reports WHERE task_id = NEW.task_id AND kind = NEW.kind AND author_id IS NEW.author_id AND id < NEW.id AND superseded_by IS NULL);
END;

-- A report gains a pin: as in 015, plus its live count (if not superseded) moves with it.
CREATE TRIGGER report_pins_counts AFTER INSERT ON report_pins BEGIN
  INSERT INTO sigs (author_id, kind, pins, reports, stale_pins, live)
    SELECT g.author_id, g.kind,
      (SELECT group_concat(p.decision_id || ':' || p.fingerprint, ',' ORDER BY p.decision_id, p.fingerprint) FROM report_pins p WHERE p.report_id = NEW.report_id),
      0,
      (SELECT count(*) FROM report_pins p JOIN decisions d ON d.id = p.decision_id WHERE p.report_id = NEW.report_id AND p.fingerprint <> d.fingerprint),
      0
    FROM report_sig s JOIN sigs g ON g.id = s.sig_id WHERE s.report_id = NEW.report_id
    ON CONFLICT (author_id, kind, pins) DO NOTHING;
${toPinsSignature}
  UPDATE report_counts SET stale = stale
      + (SELECT (n.stale_pins > 0) - (o.stale_pins > 0) FROM report_sig s JOIN sigs n ON n.id = s.sig_id JOIN sigs o ON o.id = s.prev WHERE s.report_id = NEW.report_id),
    stale_live = stale_live
      + (SELECT ((n.stale_pins > 0) - (o.stale_pins > 0)) * (r.superseded_by IS NULL) FROM report_sig s JOIN sigs n ON n.id = s.sig_id JOIN sigs o ON o.id = s.prev JOIN reports r ON r.id = s.report_id WHERE s.report_id = NEW.report_id)
    WHERE scope IN (SELECT v.scope FROM report_sig s JOIN sig_scopes v ON v.sig_id = s.sig_id WHERE s.report_id = NEW.report_id);
  UPDATE sigs SET reports = reports - 1, live = live - (SELECT superseded_by IS NULL FROM reports WHERE id = NEW.report_id)
    WHERE id = (SELECT prev FROM report_sig WHERE report_id = NEW.report_id);
  UPDATE sigs SET reports = reports + 1, live = live + (SELECT superseded_by IS NULL FROM reports WHERE id = NEW.report_id)
    WHERE id = (SELECT sig_id FROM report_sig WHERE report_id = NEW.report_id);
END;

-- An edit: as in 015, with stale_live moving by the signatures' live reports beside stale by all of them.
CREATE TRIGGER decisions_report_counts AFTER UPDATE OF fingerprint ON decisions WHEN OLD.fingerprint <> NEW.fingerprint BEGIN
  INSERT INTO report_counts (scope, reports, stale, stale_live)
    SELECT v.scope, 0, sum(g.reports), sum(g.live) FROM sig_pins sp JOIN sigs g ON g.id = sp.sig_id JOIN sig_scopes v ON v.sig_id = g.id
    WHERE sp.decision_id = NEW.id AND sp.fingerprint = OLD.fingerprint AND g.stale_pins = 0 AND g.reports > 0 GROUP BY v.scope
    ON CONFLICT (scope) DO UPDATE SET stale = stale + excluded.stale, stale_live = stale_live + excluded.stale_live;
  UPDATE sigs SET stale_pins = stale_pins + 1 WHERE id IN (SELECT sig_id FROM sig_pins WHERE decision_id = NEW.id AND fingerprint = OLD.fingerprint);
  INSERT INTO report_counts (scope, reports, stale, stale_live)
    SELECT v.scope, 0, -sum(g.reports), -sum(g.live) FROM sig_pins sp JOIN sigs g ON g.id = sp.sig_id JOIN sig_scopes v ON v.sig_id = g.id
    WHERE sp.decision_id = NEW.id AND sp.fingerprint = NEW.fingerprint AND g.stale_pins = 1 AND g.reports > 0 GROUP BY v.scope
    ON CONFLICT (scope) DO UPDATE SET stale = stale + excluded.stale, stale_live = stale_live + excluded.stale_live;
  UPDATE sigs SET stale_pins = stale_pins - 1 WHERE id IN (SELECT sig_id FROM sig_pins WHERE decision_id = NEW.id AND fingerprint = NEW.fingerprint);
END;
`
