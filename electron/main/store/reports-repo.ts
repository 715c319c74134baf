import type { Statement } from 'better-sqlite3'
import type { VerdictValue } from '../../../shared/enums'
import type { reportKinds } from '../../../shared/report-kinds'
import type { Db } from './connection'

export interface ReportRow {
  id: number
  task_id: number
  author_id: number | null
  kind: (typeof reportKinds)[number]
  verdict: VerdictValue
  summary: string
  artifact_commit: string | null
  artifact_digest: string | null
  claim_count: number
  created_at: string
  /** The next newer report of the same task, kind and author (migration 018). */
  superseded_by: number | null
}

/** A report as a task's readiness reads it (ReportsRepo.evidence). */
export interface Evidence {
  row: Pick<ReportRow, 'id' | 'task_id' | 'kind' | 'author_id' | 'verdict' | 'artifact_commit' | 'artifact_digest'>
  /** A claim stale or a basis entry suspect (staleReport). */
  stale: boolean
  basis: { decision_id: number; version: number; current: boolean }[]
}

type PackedEvidence = [
  number,
  number,
  ReportRow['kind'],
  number | null,
  ReportRow['verdict'],
  string | null,
  string | null,
  0 | 1,
  [number, number, 0 | 1][],
]

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
  verdict: VerdictValue
}

export interface ClaimLinkRow {
  claim_id: number
  decision_id: number
  pinned_fingerprint: string
  current_fingerprint: string
}

export class ReportsRepo {
  private readonly s
  /** reports.page statements, prepared once per combination of filters. */
  private readonly pages = new Map<
    string,
    { rows: Statement; total: Statement; staleTotal: Statement; attentionTotal: Statement }
  >()
  private readonly sigQueries = new Map<string, Statement<Record<string, unknown>, number>>()

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO reports (task_id, author_id, kind, verdict, summary, artifact_commit, artifact_digest, claim_count, created_at)
         VALUES (@task_id, @author_id, @kind, @verdict, @summary, @artifact_commit, @artifact_digest, @claim_count, @created_at)`,
      ),
      insertBasis: db.prepare(
        `INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count)
         SELECT ?, id, ?, ?, task_id, author_id, claim_count FROM reports WHERE id = ?`,
      ),
      insertClaim: db.prepare('INSERT INTO claims (report_id, ordinal, text, verdict) VALUES (?, ?, ?, ?)'),
      insertClaimLink: db.prepare(
        'INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint) VALUES (?, ?, ?, ?)',
      ),
      get: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE id = ?'),
      byTask: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE task_id = ? ORDER BY id'),
      all: db.prepare<[], ReportRow>('SELECT * FROM reports ORDER BY id'),
      // The newest report of each [task, kind] pair asked (one seek down reports_by_task per pair, whatever the task's
      // history), as a task's readiness reads it: its head, whether it is stale (staleReport) and its basis entries
      // (current or not). One JSON text: a string from SQLite instead of a row object per report and basis entry.
      evidence: db
        .prepare<[string], string>(
          `SELECT coalesce(json_group_array(json_array(r.id, r.task_id, r.kind, r.author_id, r.verdict, r.artifact_commit,
             r.artifact_digest, ${staleReport}, (SELECT coalesce(json_group_array(json_array(b.decision_id, b.version,
               b.fingerprint = d.fingerprint)), '[]') FROM report_basis b JOIN decisions d ON d.id = b.decision_id WHERE b.report_id = r.id))), '[]')
           FROM json_each(?) p JOIN reports r ON r.id = (SELECT x.id FROM reports x
             WHERE x.task_id = p.value ->> 0 AND x.kind = p.value ->> 1 ORDER BY x.id DESC LIMIT 1)`,
        )
        .pluck(),
      basis: db.prepare<[number], BasisRow>(
        `SELECT b.report_id, b.decision_id, b.version, b.fingerprint, d.version AS current_version, d.fingerprint AS current_fingerprint
         FROM report_basis b JOIN decisions d ON d.id = b.decision_id WHERE b.report_id = ? ORDER BY b.decision_id`,
      ),
      claims: db.prepare<[number], ClaimRow>('SELECT * FROM claims WHERE report_id = ? ORDER BY ordinal'),
      claimLinks: db.prepare<[number], ClaimLinkRow>(
        `SELECT cl.claim_id, cl.decision_id, cl.pinned_fingerprint, d.fingerprint AS current_fingerprint
         FROM claim_links cl JOIN decisions d ON d.id = cl.decision_id WHERE cl.report_id = ? ORDER BY cl.claim_id, cl.decision_id`,
      ),
      heads: db.prepare<[string], { id: number; task_id: number; author_id: number | null; claim_count: number }>(
        'SELECT id, task_id, author_id, claim_count FROM reports WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      staleAmong: db
        .prepare<[string], number>(
          `SELECT r.id FROM reports r WHERE r.id IN (SELECT value FROM json_each(?)) AND ${staleReport}`,
        )
        .pluck(),
      lastId: db.prepare<[], number>('SELECT coalesce(max(id), 0) FROM reports').pluck(),
      sigReports: db
        .prepare<[number, number, number], number>(
          'SELECT report_id FROM report_sig WHERE sig_id = ? AND report_id < ? ORDER BY report_id DESC LIMIT ?',
        )
        .pluck(),
      counts: db.prepare<[string], { reports: number; stale: number; staleLive: number }>(
        'SELECT reports, stale, stale_live AS staleLive FROM report_counts WHERE scope = ?',
      ),
      // Set-wise reads: one statement per related table for a whole page of reports (ids as a JSON array).
      getMany: db.prepare<[string], ReportRow>(
        'SELECT * FROM reports WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      basisOf: db.prepare<[string], BasisRow>(
        `SELECT b.report_id, b.decision_id, b.version, b.fingerprint, d.version AS current_version, d.fingerprint AS current_fingerprint
         FROM report_basis b JOIN decisions d ON d.id = b.decision_id WHERE b.report_id IN (SELECT value FROM json_each(?)) ORDER BY b.report_id, b.decision_id`,
      ),
      claimsOf: db.prepare<[string], ClaimRow>(
        'SELECT * FROM claims WHERE report_id IN (SELECT value FROM json_each(?)) ORDER BY report_id, ordinal',
      ),
      claimLinksOf: db.prepare<[string], ClaimLinkRow & { report_id: number }>(
        `SELECT cl.report_id, cl.claim_id, cl.decision_id, cl.pinned_fingerprint, d.fingerprint AS current_fingerprint
         FROM claim_links cl JOIN decisions d ON d.id = cl.decision_id WHERE cl.report_id IN (SELECT value FROM json_each(?)) ORDER BY cl.claim_id, cl.decision_id`,
      ),
    }
  }

  insert(row: Omit<ReportRow, 'id' | 'superseded_by'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  insertBasis(reportId: number, decisionId: number, version: number, fingerprint: string): void {
    this.s.insertBasis.run(decisionId, version, fingerprint, reportId)
  }

  insertClaim(reportId: number, ordinal: number, text: string, verdict: ClaimRow['verdict'] = 'pass'): number {
    return Number(this.s.insertClaim.run(reportId, ordinal, text, verdict).lastInsertRowid)
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

  /** The newest report of each (task, kind) pair, as a task's readiness reads it, in one statement; a pair without a report has none. */
  evidence(pairs: [taskId: number, kind: ReportRow['kind']][]): Evidence[] {
    if (!pairs.length) return []
    const packed = JSON.parse(this.s.evidence.get(JSON.stringify(pairs))!) as PackedEvidence[]
    return packed.map(([id, task_id, kind, author_id, verdict, artifact_commit, artifact_digest, stale, basis]) => ({
      row: { id, task_id, kind, author_id, verdict, artifact_commit, artifact_digest },
      stale: stale === 1,
      basis: basis.map(([decision_id, version, current]) => ({ decision_id, version, current: current === 1 })),
    }))
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

  /** Which of these reports are stale: the one home of that rule (staleReport), as the filters and totals use it. */
  staleAmong(ids: number[]): Set<number> {
    return new Set(ids.length ? this.s.staleAmong.all(JSON.stringify(ids)) : [])
  }

  /** The newest report's id (0 without reports): what existed when an edit was made. */
  lastId(): number {
    return this.s.lastId.get() ?? 0
  }

  heads(ids: number[]): { id: number; task_id: number; author_id: number | null; claim_count: number }[] {
    return ids.length ? this.s.heads.all(JSON.stringify(ids)) : []
  }

  getMany(ids: number[]): ReportRow[] {
    return ids.length ? this.s.getMany.all(JSON.stringify(ids)) : []
  }

  /** Basis, claims and claim links of a set of reports, one statement each. */
  related(ids: number[]): { basis: BasisRow[]; claims: ClaimRow[]; links: (ClaimLinkRow & { report_id: number })[] } {
    if (!ids.length) return { basis: [], claims: [], links: [] }
    const json = JSON.stringify(ids)
    return { basis: this.s.basisOf.all(json), claims: this.s.claimsOf.all(json), links: this.s.claimLinksOf.all(json) }
  }

  /**
   * One page of reports, newest first, before `before`, filtered; with the matching and the stale totals. The
   * totals are read from the figures kept by triggers (report_counts, migration 015), one row, whatever the
   * number of reports; with a task, from that task's reports (an index range). The stale filter walks reports
   * newest first and looks each one's signature up: the page costs what it shows, plus the valid ones it skips.
   */
  page(
    f: ReportFilter,
    before: number,
    limit: number,
  ): { rows: ReportRow[]; total: number; staleTotal: number; attentionTotal: number } {
    const key = [
      f.taskId !== undefined ? 't' : '',
      f.authorId !== undefined ? 'a' : '',
      f.kind ? 'k' : '',
      f.stale === undefined ? '' : f.stale ? 's' : 'v',
    ].join('')
    let q = this.pages.get(key)
    if (!q) {
      const where: string[] = []
      if (f.taskId !== undefined) where.push('r.task_id = @task')
      if (f.authorId !== undefined) where.push('r.author_id = @author')
      if (f.kind) where.push('r.kind = @kind')
      const base = where.length ? where.join(' AND ') : '1'
      const cond = f.stale === undefined ? base : `${base} AND ${f.stale ? staleReport : `NOT ${staleReport}`}`
      q = {
        rows: this.db.prepare(
          `SELECT r.* FROM reports r WHERE ${cond} AND r.id < @before ORDER BY r.id DESC LIMIT @limit`,
        ),
        // Only with a task: the other filters' totals are kept (see counts).
        total: this.db.prepare(`SELECT count(*) FROM reports r WHERE ${cond}`).pluck(),
        staleTotal: this.db.prepare(`SELECT count(*) FROM reports r WHERE ${base} AND ${staleReport}`).pluck(),
        attentionTotal: this.db
          .prepare(`SELECT count(*) FROM reports r WHERE ${base} AND r.superseded_by IS NULL AND ${staleReport}`)
          .pluck(),
      }
      this.pages.set(key, q)
    }
    const args: Record<string, unknown> = {}
    if (f.taskId !== undefined) args.task = f.taskId
    if (f.authorId !== undefined) args.author = f.authorId
    if (f.kind) args.kind = f.kind
    const rows =
      (f.taskId === undefined && f.stale !== undefined && this.bySignature(f, args, before, limit)) ||
      (q.rows.all({ ...args, before, limit }) as ReportRow[])
    if (f.taskId !== undefined)
      return {
        rows,
        total: q.total.get(args) as number,
        staleTotal: q.staleTotal.get(args) as number,
        attentionTotal: q.attentionTotal.get(args) as number,
      }
    const c = this.counts(f.authorId, f.kind)
    return {
      rows,
      total: f.stale === undefined ? c.reports : f.stale ? c.stale : c.reports - c.stale,
      staleTotal: c.stale,
      attentionTotal: c.staleLive,
    }
  }

  /**
   * The stale (or valid) reports before `before`, newest first, read by signature (migration 015): the signatures
   * of the filter's author and kind that are stale (valid), then each one's newest reports, merged. Null when there
   * are more signatures than MAX_SIGS (the caller walks the reports instead).
   */
  private bySignature(
    f: ReportFilter,
    args: Record<string, unknown>,
    before: number,
    limit: number,
  ): ReportRow[] | null {
    const key = `${f.authorId !== undefined ? 'a' : ''}${f.kind ? 'k' : ''}${f.stale ? 's' : 'v'}`
    let q = this.sigQueries.get(key)
    if (!q) {
      const where = ['reports > 0', f.stale ? 'stale_pins > 0' : 'stale_pins = 0']
      if (f.authorId !== undefined) where.push('author_id = @author')
      if (f.kind) where.push('kind = @kind')
      q = this.db
        .prepare<Record<string, unknown>, number>(
          `SELECT id FROM sigs WHERE ${where.join(' AND ')} LIMIT ${MAX_SIGS + 1}`,
        )
        .pluck()
      this.sigQueries.set(key, q)
    }
    const sigs = q.all(args)
    if (sigs.length > MAX_SIGS) return null
    const ids = sigs.flatMap((sig) => this.s.sigReports.all(sig, before, limit))
    ids.sort((a, b) => b - a)
    return this.getMany(ids.slice(0, limit)).reverse()
  }

  /** The kept totals of a scope (migration 015): reports, and those stale; an author (null: none) and a kind narrow it. */
  counts(authorId?: number | null, kind?: ReportRow['kind']): { reports: number; stale: number; staleLive: number } {
    const scope = `${authorId === undefined ? '' : `a${authorId ?? 0}`}${kind ? `k${kind}` : ''}`
    return this.s.counts.get(scope) ?? { reports: 0, stale: 0, staleLive: 0 }
  }
}

/**
 * A report is stale while a claim or its basis is pinned to content its decision no longer has: its signature
 * (migration 015: the exact set of contents it is pinned to) has a pair that is not current. Two key lookups per
 * report.
 */
/** Past this many signatures in a filter, its stale (valid) reports are found by walking the reports. */
const MAX_SIGS = 64
const staleReport =
  'EXISTS (SELECT 1 FROM report_sig s JOIN sigs g ON g.id = s.sig_id WHERE s.report_id = r.id AND g.stale_pins > 0)'

export interface ReportFilter {
  taskId?: number
  authorId?: number
  kind?: ReportRow['kind']
  stale?: boolean
}
