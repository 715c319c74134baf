import type { DecisionStatusValue } from '../../../shared/enums'
import type { Db } from './connection'
import { unpackImpactTasks, type FlaggedTasks, type ImpactTaskRow } from './tasks-repo'

export type { DecisionStatusValue }

export interface DecisionRow {
  id: number
  title: string
  statement: string
  rationale: string
  status: DecisionStatusValue
  version: number
  fingerprint: string
  source_message_id: string | null
  supersedes: number | null
  superseded_by: number | null
  created_by: number | null
  created_at: string
  updated_at: string
}

export type DecisionHead = Pick<DecisionRow, 'id' | 'title'>

export interface RevisionRow {
  decision_id: number
  version: number
  title: string
  statement: string
  rationale: string
  status: DecisionStatusValue
  content_hash: string
  fingerprint: string
  reason: string
  actor_id: number | null
  editorial: number
  source_message_id: string | null
  created_at: string
}

/** One normative edit: the content it left (from) and reached (to), and the newest report at that moment. */
export interface DecisionImpactRow {
  decision_id: number
  version: number
  from_fingerprint: string
  to_fingerprint: string
  last_report_id: number
}

export class DecisionsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO decisions (title, statement, rationale, status, version, fingerprint, source_message_id, supersedes, created_by, created_at, updated_at)
         VALUES (@title, @statement, @rationale, @status, 1, @fingerprint, @source_message_id, @supersedes, @created_by, @created_at, @created_at)`,
      ),
      insertRevision: db.prepare(
        `INSERT INTO decision_revisions (decision_id, version, title, statement, rationale, status, content_hash, fingerprint, reason, actor_id, editorial, source_message_id, created_at)
         VALUES (@decision_id, @version, @title, @statement, @rationale, @status, @content_hash, @fingerprint, @reason, @actor_id, @editorial, @source_message_id, @created_at)`,
      ),
      // Compare-and-set: changes nothing unless the row is still at the version the editor saw.
      updateHead: db.prepare(
        `UPDATE decisions SET title = @title, statement = @statement, rationale = @rationale, status = @status, version = version + 1,
         fingerprint = @fingerprint, updated_at = @updated_at WHERE id = @id AND version = @expected_version`,
      ),
      setSupersededBy: db.prepare('UPDATE decisions SET superseded_by = ? WHERE id = ?'),
      get: db.prepare<[number], DecisionRow>('SELECT * FROM decisions WHERE id = ?'),
      list: db.prepare<[], DecisionRow>('SELECT * FROM decisions ORDER BY id'),
      page: db.prepare<[number, number], DecisionRow>('SELECT * FROM decisions WHERE id > ? ORDER BY id LIMIT ?'),
      countBetween: db.prepare<[number, number], { n: number }>(
        'SELECT count(*) AS n FROM decisions WHERE id > ? AND id <= ?',
      ),
      maxId: db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM decisions'),
      heads: db.prepare<[number, number], DecisionHead>(
        'SELECT id, title FROM decisions WHERE id > ? ORDER BY id LIMIT ?',
      ),
      historyBetween: db.prepare<[number, number], RevisionRow>(
        'SELECT * FROM decision_revisions WHERE decision_id BETWEEN ? AND ? ORDER BY decision_id, version',
      ),
      history: db.prepare<[number], RevisionRow>(
        'SELECT * FROM decision_revisions WHERE decision_id = ? ORDER BY version',
      ),
      revision: db.prepare<[number, number], RevisionRow>(
        'SELECT * FROM decision_revisions WHERE decision_id = ? AND version = ?',
      ),
      insertImpact: db.prepare(
        'INSERT INTO decision_impacts (decision_id, version, from_fingerprint, to_fingerprint, last_report_id, tasks) VALUES (@decision_id, @version, @from_fingerprint, @to_fingerprint, @last_report_id, @tasks)',
      ),
      impact: db.prepare<[number, number], DecisionImpactRow>(
        'SELECT decision_id, version, from_fingerprint, to_fingerprint, last_report_id FROM decision_impacts WHERE decision_id = ? AND version = ?',
      ),
      impactTasks: db
        .prepare<[number, number], string>('SELECT tasks FROM decision_impacts WHERE decision_id = ? AND version = ?')
        .pluck(),
      fingerprintOfContent: db
        .prepare<[number, string], string>(
          'SELECT fingerprint FROM decision_revisions WHERE decision_id = ? AND content_hash = ? ORDER BY version DESC LIMIT 1',
        )
        .pluck(),
    }
  }

  insert(row: Omit<DecisionRow, 'id' | 'version' | 'superseded_by' | 'updated_at'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  insertRevision(row: RevisionRow): void {
    this.s.insertRevision.run(row)
  }

  /** Returns false when the decision is no longer at expectedVersion. */
  updateHead(
    id: number,
    expectedVersion: number,
    head: Pick<DecisionRow, 'title' | 'statement' | 'rationale' | 'status' | 'fingerprint' | 'updated_at'>,
  ): boolean {
    return this.s.updateHead.run({ ...head, id, expected_version: expectedVersion }).changes === 1
  }

  setSupersededBy(id: number, by: number): void {
    this.s.setSupersededBy.run(by, id)
  }

  get(id: number): DecisionRow | undefined {
    return this.s.get.get(id)
  }

  list(): DecisionRow[] {
    return this.s.list.all()
  }

  history(id: number): RevisionRow[] {
    return this.s.history.all(id)
  }

  /** At most `limit` decisions after id `afterId`, in id order: a long read in slices (the export download). */
  page(afterId: number, limit: number): DecisionRow[] {
    return this.s.page.all(afterId, limit)
  }

  /**
   * How many decisions have an id in (afterId, upToId]: the export download's log says how many there are before it
   * reads them, and counts them a range at a time (one count(*) of 100,000 rows held the server 40–80 ms).
   */
  countBetween(afterId: number, upToId: number): number {
    return this.s.countBetween.get(afterId, upToId)!.n
  }

  /** The highest decision id, or 0 when there are none. */
  maxId(): number {
    return this.s.maxId.get()!.n ?? 0
  }

  /** The ids and titles of at most `limit` decisions after id `afterId`, in id order. */
  heads(afterId: number, limit: number): DecisionHead[] {
    return this.s.heads.all(afterId, limit)
  }

  /** The revisions of the decisions with ids first..last, by decision then version (history() of a page at once). */
  historyBetween(first: number, last: number): RevisionRow[] {
    return this.s.historyBetween.all(first, last)
  }

  revision(id: number, version: number): RevisionRow | undefined {
    return this.s.revision.get(id, version)
  }

  /**
   * The record of a normative edit, with the tasks it flagged (packed, in key order: FlaggedTasks); its reports part
   * is derived later from the immutable pins.
   */
  insertImpact(row: DecisionImpactRow, flagged: FlaggedTasks): void {
    this.s.insertImpact.run({ ...row, tasks: flagged.packed })
  }

  /** The tasks the edit that produced `version` flagged, in key order (empty for an edit that flagged none). */
  impactTasks(id: number, version: number): ImpactTaskRow[] {
    const text = this.s.impactTasks.get(id, version)
    return text ? unpackImpactTasks(text) : []
  }

  impact(id: number, version: number): DecisionImpactRow | undefined {
    return this.s.impact.get(id, version)
  }

  /** The fingerprint an earlier revision with this exact normative content had, so a revert restores it. */
  fingerprintOfContent(id: number, contentHash: string): string | undefined {
    return this.s.fingerprintOfContent.get(id, contentHash)
  }
}
