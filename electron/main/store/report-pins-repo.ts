import type { Db } from './connection'

/**
 * The pins of reports on decisions' contents (a claim link or a basis entry holds a decision's fingerprint; migrations
 * 008 and 012): what an edit of a decision touches, read from the pin indexes and the kept figures, never by reading
 * the reports themselves. The report rows, their claims and evidence are ReportsRepo's.
 */
export class ReportPinsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      // An edit from → to touches the claims and basis entries pinned to `from` (made stale) or `to`
      // (restored), read through the pin indexes (migration 008) in report order: never the older stale
      // ones. Each answers with parallel JSON arrays (cheaper than materialising rows one by one).
      pinnedClaims: db
        .prepare<{ d: number; fp: string; after: number; last: number; limit: number }, [string, string]>(
          `SELECT coalesce(json_group_array(report_id), '[]'), coalesce(json_group_array(n), '[]') FROM
             (SELECT report_id, count(*) AS n FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @fp AND report_id > @after AND report_id <= @last
              GROUP BY report_id ORDER BY report_id LIMIT @limit)`,
        )
        .raw(),
      pinnedBasis: db
        .prepare<
          { d: number; fp: string; after: number; last: number; limit: number },
          [string, string, string, string]
        >(
          `SELECT coalesce(json_group_array(report_id), '[]'), coalesce(json_group_array(task_id), '[]'), coalesce(json_group_array(author_id), '[]'),
             coalesce(json_group_array(claim_count), '[]') FROM
             (SELECT report_id, task_id, author_id, claim_count FROM report_basis WHERE decision_id = @d AND fingerprint = @fp AND report_id > @after AND report_id <= @last
              ORDER BY report_id LIMIT @limit)`,
        )
        .raw(),
      // One text, {report: [claims]}: a string from SQLite instead of a row object per claim.
      pinnedClaimIds: db
        .prepare<{ d: number; fp: string; after: number; upTo: number }, string>(
          `SELECT coalesce(json_group_object(report_id, json(ids)), '{}') FROM
             (SELECT report_id, json_group_array(claim_id ORDER BY claim_id) AS ids FROM claim_links
              WHERE decision_id = @d AND pinned_fingerprint = @fp AND report_id > @after AND report_id <= @upTo
              GROUP BY report_id)`,
        )
        .pluck(),
      // The figures kept with the pins (migration 012): an edit's report side without reading its reports.
      pinTotals: db.prepare<[number, string], { reports: number; claims: number; report_claims: number }>(
        'SELECT reports, claims, report_claims FROM pin_totals WHERE decision_id = ? AND fingerprint = ?',
      ),
      pinAuthors: db.prepare<[number, string], { author_id: number; reports: number }>(
        'SELECT author_id, reports FROM pin_authors WHERE decision_id = ? AND fingerprint = ? AND reports > 0 ORDER BY author_id',
      ),
      // Reports pinned to both contents (only a revert has both sides non-empty): walks the smaller side.
      pinOverlap: db
        .prepare<[number, string, number, string], number>(
          `SELECT count(*) FROM report_pins a WHERE a.decision_id = ? AND a.fingerprint = ?
             AND EXISTS (SELECT 1 FROM report_pins b WHERE b.decision_id = ? AND b.fingerprint = ? AND b.report_id = a.report_id)`,
        )
        .pluck(),
      authorPins: db
        .prepare<{ d: number; fp: string; author: number; after: number; last: number; limit: number }, number>(
          `SELECT report_id FROM report_pins WHERE decision_id = @d AND fingerprint = @fp AND author_id = @author AND report_id > @after AND report_id <= @last
           ORDER BY report_id LIMIT @limit`,
        )
        .pluck(),
      authorPinCount: db
        .prepare<{ d: number; fp: string; author: number; last: number }, number>(
          'SELECT count(*) FROM report_pins WHERE decision_id = @d AND fingerprint = @fp AND author_id = @author AND report_id <= @last',
        )
        .pluck(),
      pinnedClaimCounts: db.prepare<[number, string, string], { report_id: number; n: number }>(
        `SELECT report_id, count(*) AS n FROM claim_links WHERE decision_id = ? AND pinned_fingerprint = ? AND report_id IN (SELECT value FROM json_each(?))
         GROUP BY report_id`,
      ),
    }
  }

  /** Reports pinned to one content of a decision (a claim or the basis), the claim links pinned to it, and those reports' claims. */
  pinTotals(decisionId: number, fingerprint: string): { reports: number; claims: number; reportClaims: number } {
    const t = this.s.pinTotals.get(decisionId, fingerprint)
    return { reports: t?.reports ?? 0, claims: t?.claims ?? 0, reportClaims: t?.report_claims ?? 0 }
  }

  /** The authors of the reports pinned to one content, with how many each (author 0: reports without one). */
  pinAuthors(decisionId: number, fingerprint: string): { authorId: number; reports: number }[] {
    return this.s.pinAuthors.all(decisionId, fingerprint).map((r) => ({ authorId: r.author_id, reports: r.reports }))
  }

  /** How many reports are pinned to both contents; reads the side with fewer reports. */
  pinOverlap(
    decisionId: number,
    a: { fingerprint: string; reports: number },
    b: { fingerprint: string; reports: number },
  ): number {
    if (!a.reports || !b.reports) return 0
    const [small, large] = a.reports <= b.reports ? [a, b] : [b, a]
    return this.s.pinOverlap.get(decisionId, small.fingerprint, decisionId, large.fingerprint) ?? 0
  }

  /** One author's reports pinned to one content, in (after, last], ascending; at most `limit` (-1: all). */
  authorPins(
    decisionId: number,
    fingerprint: string,
    authorId: number,
    after: number,
    last: number,
    limit = -1,
  ): number[] {
    return this.s.authorPins.all({ d: decisionId, fp: fingerprint, author: authorId, after, last, limit })
  }

  authorPinCount(decisionId: number, fingerprint: string, authorId: number, last: number): number {
    return this.s.authorPinCount.get({ d: decisionId, fp: fingerprint, author: authorId, last }) ?? 0
  }

  /** Claim links pinned to `fingerprint`, counted per report, for the reports given. */
  pinnedClaimCounts(decisionId: number, fingerprint: string, ids: number[]): Map<number, number> {
    if (!ids.length) return new Map()
    return new Map(
      this.s.pinnedClaimCounts.all(decisionId, fingerprint, JSON.stringify(ids)).map((r) => [r.report_id, r.n]),
    )
  }

  /** Reports with claims on the decision pinned to `fingerprint`, in (after, last], ascending: ids and claim counts. */
  pinnedClaims(
    decisionId: number,
    fingerprint: string,
    after: number,
    last: number,
    limit = -1,
  ): { ids: number[]; counts: number[] } {
    const [ids, counts] = this.s.pinnedClaims.get({ d: decisionId, fp: fingerprint, after, last, limit })!
    return { ids: JSON.parse(ids) as number[], counts: JSON.parse(counts) as number[] }
  }

  /** Basis entries on the decision at `fingerprint`, in (after, last], ascending, with their report's head. */
  pinnedBasis(decisionId: number, fingerprint: string, after: number, last: number, limit = -1): PinnedBasis {
    const [ids, tasks, authors, claimCounts] = this.s.pinnedBasis.get({
      d: decisionId,
      fp: fingerprint,
      after,
      last,
      limit,
    })!
    return {
      ids: JSON.parse(ids) as number[],
      tasks: JSON.parse(tasks) as number[],
      authors: JSON.parse(authors) as (number | null)[],
      claimCounts: JSON.parse(claimCounts) as number[],
    }
  }

  /** Claim ids on the decision pinned to `fingerprint` for reports in (after, upTo], by report. */
  pinnedClaimIds(decisionId: number, fingerprint: string, after: number, upTo: number): Map<number, number[]> {
    const byReport = JSON.parse(this.s.pinnedClaimIds.get({ d: decisionId, fp: fingerprint, after, upTo })!) as Record<
      string,
      number[]
    >
    return new Map(Object.entries(byReport).map(([report, claims]) => [Number(report), claims]))
  }
}

export interface PinnedBasis {
  ids: number[]
  tasks: number[]
  authors: (number | null)[]
  claimCounts: number[]
}
