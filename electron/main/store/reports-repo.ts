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

/** Builds the caller's entry for one report a decision change touches (no intermediate rows are kept). */
export type TouchedReportFactory<T> = (reportId: number, taskId: number, authorId: number | null, claimCount: number, staleClaimIds: string[]) => T

export class ReportsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO reports (task_id, author_id, kind, verdict, summary, artifact_commit, artifact_digest, claim_count, created_at)
         VALUES (@task_id, @author_id, @kind, @verdict, @summary, @artifact_commit, @artifact_digest, @claim_count, @created_at)`,
      ),
      insertBasis: db.prepare(
        `INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count)
         SELECT ?, id, ?, ?, task_id, author_id, claim_count FROM reports WHERE id = ?`,
      ),
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
      // The two range reads of a decision change return one JSON document each: building 10,000s of
      // rows in SQLite and parsing once is several times cheaper than materialising them row by row.
      // Claims valid at `from` and not at `to`, as two parallel flat arrays in key order (so by report):
      // [[report ids…], [claim ids…]]. Flat arrays cost SQLite far less than one nested array per report.
      staleClaims: db
        .prepare<{ d: number; from: string; to: string; prefix: string }, [string | null, string | null]>(
          `SELECT json_group_array(report_id), json_group_array(@prefix || claim_id) FROM (SELECT report_id, claim_id FROM claim_links
           WHERE decision_id = @d AND pinned_fingerprint = @from AND pinned_fingerprint <> @to ORDER BY report_id, claim_id)`,
        )
        .raw(),
      // Basis entries not at `to`, with the report's head: [[report, task, author, claim count, leaving now 1/0], …].
      basisNotAt: db
        .prepare<{ d: number; from: string; to: string }, string>(
          `SELECT coalesce(json_group_array(json_array(report_id, task_id, author_id, claim_count, fingerprint = @from)), '[]')
           FROM (SELECT * FROM report_basis WHERE decision_id = @d AND fingerprint <> @to ORDER BY report_id)`,
        )
        .pluck(),
      head: db.prepare<[number], [number, number, number | null, number]>('SELECT id, task_id, author_id, claim_count FROM reports WHERE id = ?').raw(),
    }
  }

  insert(row: Omit<ReportRow, 'id'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  insertBasis(reportId: number, decisionId: number, version: number, fingerprint: string): void {
    this.s.insertBasis.run(decisionId, version, fingerprint, reportId)
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

  /**
   * The reports a change of the decision from `from` to `to` leaves behind (claims or basis), ascending,
   * each with its stale claim ids (already prefixed with `claimPrefix`). One range read per table.
   */
  touchedBy<T>(decisionId: number, from: string, to: string, claimPrefix: string, make: TouchedReportFactory<T>): T[] {
    const args = { d: decisionId, from, to }
    // Both lists come in report order (the keys' order), so one linear merge joins them.
    const basis = JSON.parse(this.s.basisNotAt.get(args)!) as [number, number, number | null, number, number][]
    const [reportsJson, claimsJson] = this.s.staleClaims.get({ ...args, prefix: claimPrefix })!
    const reportIds = JSON.parse(reportsJson ?? '[]') as number[]
    const claimIds = JSON.parse(claimsJson ?? '[]') as string[]
    const out: T[] = []
    let i = 0
    let j = 0
    while (i < reportIds.length || j < basis.length) {
      const fromClaims = reportIds[i] ?? Infinity
      const b = basis[j]
      const fromBasis = b ? b[0] : Infinity
      if (b && fromBasis < fromClaims) {
        if (b[4] === 1) out.push(make(b[0], b[1], b[2], b[3], [])) // its basis leaves, no claim does
        j++
        continue
      }
      const ids: string[] = []
      while (i < reportIds.length && reportIds[i] === fromClaims) {
        const claim = claimIds[i++]
        if (claim !== undefined) ids.push(claim)
      }
      let head: [number, number, number | null, number, ...unknown[]]
      if (b && fromBasis === fromClaims) {
        head = b
        j++
      } else head = this.s.head.get(fromClaims)! // claims on a decision its basis does not name
      out.push(make(fromClaims, head[1], head[2], head[3], ids))
    }
    return out
  }
}
