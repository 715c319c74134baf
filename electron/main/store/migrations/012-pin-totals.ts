/**
 * Schema v12 (an edit costs its tasks, not its reports): the report side of an edit from → to is read from
 * figures kept with the pins instead of from every pinned row.
 * - report_pins: one row per report and decision content it has a claim or its basis pinned to (the set an
 *   edit touches), with the report's author, so one author's first reports are a short range read.
 * - pin_totals: per decision content, the reports pinned to it, the claim links pinned to it and the claims of
 *   those reports; pin_authors: the same reports counted per author (0: no author).
 * Kept by triggers in the statements that write the pins (claim links and basis entries are never updated or
 * deleted), and backfilled here.
 * - notices.report_count: a notice written from then on names its reports by its edit (the author's reports
 *   pinned to the content the edit left, up to the edit's last report), not by a list of every id; NULL for the
 *   notices before, whose report_ids list them.
 */
export const up = `
CREATE TABLE report_pins (
  decision_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  report_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL,
  PRIMARY KEY (decision_id, fingerprint, report_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX report_pins_by_author ON report_pins(decision_id, fingerprint, author_id, report_id);

CREATE TABLE pin_totals (
  decision_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  reports INTEGER NOT NULL,
  claims INTEGER NOT NULL,
  report_claims INTEGER NOT NULL,
  PRIMARY KEY (decision_id, fingerprint)
) STRICT, WITHOUT ROWID;

CREATE TABLE pin_authors (
  decision_id INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  author_id INTEGER NOT NULL,
  reports INTEGER NOT NULL,
  PRIMARY KEY (decision_id, fingerprint, author_id)
) STRICT, WITHOUT ROWID;

INSERT OR IGNORE INTO report_pins SELECT cl.decision_id, cl.pinned_fingerprint, cl.report_id, coalesce(r.author_id, 0)
  FROM claim_links cl JOIN reports r ON r.id = cl.report_id;
INSERT OR IGNORE INTO report_pins SELECT decision_id, fingerprint, report_id, coalesce(author_id, 0) FROM report_basis;
INSERT INTO pin_totals SELECT p.decision_id, p.fingerprint, count(*), 0, sum(r.claim_count)
  FROM report_pins p JOIN reports r ON r.id = p.report_id GROUP BY p.decision_id, p.fingerprint;
UPDATE pin_totals SET claims = (SELECT count(*) FROM claim_links cl WHERE cl.decision_id = pin_totals.decision_id AND cl.pinned_fingerprint = pin_totals.fingerprint);
INSERT INTO pin_authors SELECT decision_id, fingerprint, author_id, count(*) FROM report_pins GROUP BY decision_id, fingerprint, author_id;

CREATE TRIGGER claim_links_pins AFTER INSERT ON claim_links BEGIN
  INSERT INTO pin_totals VALUES (NEW.decision_id, NEW.pinned_fingerprint, 0, 1, 0)
    ON CONFLICT (decision_id, fingerprint) DO UPDATE SET claims = claims + 1;
  INSERT OR IGNORE INTO report_pins SELECT NEW.decision_id, NEW.pinned_fingerprint, NEW.report_id, coalesce(author_id, 0) FROM reports WHERE id = NEW.report_id;
END;
CREATE TRIGGER report_basis_pins AFTER INSERT ON report_basis BEGIN
  INSERT OR IGNORE INTO report_pins VALUES (NEW.decision_id, NEW.fingerprint, NEW.report_id, coalesce(NEW.author_id, 0));
END;
CREATE TRIGGER report_pins_totals AFTER INSERT ON report_pins BEGIN
  INSERT INTO pin_totals SELECT NEW.decision_id, NEW.fingerprint, 1, 0, claim_count FROM reports WHERE id = NEW.report_id
    ON CONFLICT (decision_id, fingerprint) DO UPDATE SET reports = reports + 1, report_claims = report_claims + excluded.report_claims;
  INSERT INTO pin_authors VALUES (NEW.decision_id, NEW.fingerprint, NEW.author_id, 1)
    ON CONFLICT (decision_id, fingerprint, author_id) DO UPDATE SET reports = reports + 1;
END;

ALTER TABLE notices ADD COLUMN report_count INTEGER;
`
