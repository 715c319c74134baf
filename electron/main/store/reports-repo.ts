import type { Db } from './connection'

export interface ReportRow {
  id: number
  task_id: number
  author_id: number | null
  kind: 'implementation' | 'test' | 'review'
  verdict: 'pass' | 'fail' | 'partial'
  summary: string
  artifact_commit: string | null
  artifact_digest: string | null
  claim_count: number
  created_at: string
}

export interface BasisRow {
  report_id: number
  decision_id: number
  version: number
  fingerprint: string
  current_version: number
  current_fingerprint: string
}

export interface ClaimRow {
  id: number
  report_id: number
  ordinal: number
  text: string
}

export interface ClaimLinkRow {
  claim_id: number
  decision_id: number
  pinned_fingerprint: string
  current_fingerprint: string
}

/** One report touched by a decision change: [report id, task id, author id, claim count, stale claim ids (comma-separated) | null]. */
export type TouchedReport = [number, number, number | null, number, string | null]

export class ReportsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO reports (task_id, author_id, kind, verdict, summary, artifact_commit, artifact_digest, claim_count, created_at)
         VALUES (@task_id, @author_id, @kind, @verdict, @summary, @artifact_commit, @artifact_digest, @claim_count, @created_at)`,
      ),
      insertBasis: db.prepare('INSERT INTO report_basis (decision_id, report_id, version, fingerprint) VALUES (?, ?, ?, ?)'),
      insertClaim: db.prepare('INSERT INTO claims (report_id, ordinal, text) VALUES (?, ?, ?)'),
      insertClaimLink: db.prepare('INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint) VALUES (?, ?, ?, ?)'),
      get: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE id = ?'),
      byTask: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE task_id = ? ORDER BY id'),
      all: db.prepare<[], ReportRow>('SELECT * FROM reports ORDER BY id'),
      latestOfKind: db.prepare<[number, string], ReportRow>('SELECT * FROM reports WHERE task_id = ? AND kind = ? ORDER BY id DESC LIMIT 1'),
      basis: db.prepare<[number], BasisRow>(
        `SELECT b.report_id, b.decision_id, b.version, b.fingerprint, d.version AS current_version, d.fingerprint AS current_fingerprint
         FROM report_basis b JOIN decisions d ON d.id = b.decision_id WHERE b.report_id = ? ORDER BY b.decision_id`,
      ),
      claims: db.prepare<[number], ClaimRow>('SELECT * FROM claims WHERE report_id = ? ORDER BY ordinal'),
      claimLinks: db.prepare<[number], ClaimLinkRow>(
        `SELECT cl.claim_id, cl.decision_id, cl.pinned_fingerprint, d.fingerprint AS current_fingerprint
         FROM claim_links cl JOIN decisions d ON d.id = cl.decision_id WHERE cl.report_id = ? ORDER BY cl.claim_id, cl.decision_id`,
      ),
      // Claims whose link was valid at `from` and is not at `to`, grouped by report (the key's order).
      staleByReport: db
        .prepare<[number, string, string], TouchedReport>(
          `SELECT cl.report_id, r.task_id, r.author_id, r.claim_count, group_concat(cl.claim_id) FROM claim_links cl
           JOIN reports r ON r.id = cl.report_id
           WHERE cl.decision_id = ? AND cl.pinned_fingerprint = ? AND cl.pinned_fingerprint <> ?
           GROUP BY cl.report_id ORDER BY cl.report_id`,
        )
        .raw(),
      basisLeaving: db
        .prepare<[number, string, string], TouchedReport>(
          `SELECT b.report_id, r.task_id, r.author_id, r.claim_count, NULL FROM report_basis b JOIN reports r ON r.id = b.report_id
           WHERE b.decision_id = ? AND b.fingerprint = ? AND b.fingerprint <> ? ORDER BY b.report_id`,
        )
        .raw(),
    }
  }

  insert(row: Omit<ReportRow, 'id'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  insertBasis(reportId: number, decisionId: number, version: number, fingerprint: string): void {
    this.s.insertBasis.run(decisionId, reportId, version, fingerprint)
  }

  insertClaim(reportId: number, ordinal: number, text: string): number {
    return Number(this.s.insertClaim.run(reportId, ordinal, text).lastInsertRowid)
  }

  insertClaimLink(claimId: number, reportId: number, decisionId: number, fingerprint: string): void {
    this.s.insertClaimLink.run(decisionId, reportId, claimId, fingerprint)
  }

  get(id: number): ReportRow | undefined {
    return this.s.get.get(id)
  }

  list(taskId?: number): ReportRow[] {
    return taskId === undefined ? this.s.all.all() : this.s.byTask.all(taskId)
  }

  latestOfKind(taskId: number, kind: string): ReportRow | undefined {
    return this.s.latestOfKind.get(taskId, kind)
  }

  basis(reportId: number): BasisRow[] {
    return this.s.basis.all(reportId)
  }

  claims(reportId: number): ClaimRow[] {
    return this.s.claims.all(reportId)
  }

  claimLinks(reportId: number): ClaimLinkRow[] {
    return this.s.claimLinks.all(reportId)
  }

  /** Reports with claims that were valid at `from` and are not at `to`, with those claim ids. */
  staleClaimsByReport(decisionId: number, from: string, to: string): TouchedReport[] {
    return this.s.staleByReport.all(decisionId, from, to)
  }

  /** Reports whose basis entry for the decision was current at `from` and is not at `to`. */
  basisLeaving(decisionId: number, from: string, to: string): TouchedReport[] {
    return this.s.basisLeaving.all(decisionId, from, to)
  }
}
