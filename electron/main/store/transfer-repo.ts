import type { Db } from './connection'
import type { DecisionRow } from './decisions-repo'
import type { NoticeRow } from './log-repo'
import type { MemberRow } from './members-repo'
import type { ProposalRow } from './proposals-repo'
import type { ReportRow } from './reports-repo'
import type { TaskRow } from './tasks-repo'

/**
 * Whole-workspace transfer: a consistent read of everything for export, and the inserts that restore
 * an export into a new, empty workspace file with the original row numbers (so keys like D-3 survive).
 * Reading otherwise goes through the other repositories; only what they lack lives here.
 */
export class TransferRepo {
  private readonly s

  constructor(private readonly db: Db) {
    this.s = {
      notices: db.prepare<[], NoticeRow>('SELECT * FROM notices ORDER BY id'),
      setMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      member: db.prepare(
        `INSERT INTO members (id, name, role, authority, instructions, provider_kind, provider_model, provider_base_url, approval, max_steps, planning_interval, network, mcp_off, runner, archived_at, created_at, updated_at)
         VALUES (@id, @name, @role, @authority, @instructions, @provider_kind, @provider_model, @provider_base_url, @approval, @max_steps, @planning_interval, @network, @mcp_off, @runner, @archived_at, @created_at, @updated_at)`,
      ),
      decision: db.prepare(
        `INSERT INTO decisions (id, title, statement, rationale, status, version, fingerprint, source_message_id, supersedes, superseded_by, created_by, created_at, updated_at)
         VALUES (@id, @title, @statement, @rationale, @status, @version, @fingerprint, @source_message_id, @supersedes, @superseded_by, @created_by, @created_at, @updated_at)`,
      ),
      proposal: db.prepare(
        `INSERT INTO proposals (id, decision_id, author_id, base_version, title, statement, rationale, status, reason, state, decided_by, decided_at, decision_reason, source_message_id, created_at)
         VALUES (@id, @decision_id, @author_id, @base_version, @title, @statement, @rationale, @status, @reason, @state, @decided_by, @decided_at, @decision_reason, @source_message_id, @created_at)`,
      ),
      task: db.prepare(
        `INSERT INTO tasks (id, title, spec, acceptance_criteria, status, assignee_id, flag, artifact_commit, artifact_digest, required_reports, version, archived_at, created_at, updated_at)
         VALUES (@id, @title, @spec, @acceptance_criteria, @status, @assignee_id, @flag, @artifact_commit, @artifact_digest, @required_reports, @version, @archived_at, @created_at, @updated_at)`,
      ),
      attempt: db.prepare<[number | null, number | null, number]>(
        'UPDATE tasks SET attempt_of = ?, picked_attempt = ? WHERE id = ?',
      ),
      report: db.prepare(
        `INSERT INTO reports (id, task_id, author_id, kind, verdict, summary, artifact_commit, artifact_digest, claim_count, created_at)
         VALUES (@id, @task_id, @author_id, @kind, @verdict, @summary, @artifact_commit, @artifact_digest, @claim_count, @created_at)`,
      ),
      // The export keeps no claim verdicts yet: each takes its report's, as migration 025 gave the claims before it.
      claim: db.prepare(
        'INSERT INTO claims (id, report_id, ordinal, text, verdict) SELECT ?, id, ?, ?, verdict FROM reports WHERE id = ?',
      ),
      notice: db.prepare(
        `INSERT INTO notices (id, member_id, kind, decision_id, decision_version, task_ids, report_ids, text, created_at, delivered_at)
         VALUES (@id, @member_id, @kind, @decision_id, @decision_version, @task_ids, @report_ids, @text, @created_at, @delivered_at)`,
      ),
      counter: db.prepare(
        'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value',
      ),
      foreignKeyCheck: db.prepare<[], { table: string; rowid: number | null; parent: string; fkid: number }>(
        'PRAGMA foreign_key_check',
      ),
    }
  }

  /** Runs fn in one read transaction, so every read sees the same committed state (WAL snapshot). */
  snapshot<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred()
  }

  /**
   * Opens a read transaction that stays open across turns of the event loop, for a long read in slices (the export
   * download). Only on a connection of its own (Harness.openReader): the workspace's main connection writes meanwhile,
   * and its writes must not land inside this transaction. The snapshot is taken here (the first read), not later.
   */
  beginRead(): void {
    this.db.exec('BEGIN DEFERRED')
    this.db.prepare('SELECT count(*) FROM meta').pluck().get()
  }

  endRead(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT')
  }

  /**
   * Runs fn in one IMMEDIATE transaction with foreign keys checked at commit, so rows that refer to
   * each other (supersedes / superseded_by) can go in any order. fn must be synchronous.
   */
  restore<T>(fn: () => T): T {
    return this.db
      .transaction(() => {
        this.db.pragma('defer_foreign_keys = ON')
        return fn()
      })
      .immediate()
  }

  /** Rows that refer to something missing; checked before commit to fail with a clear message. */
  danglingReferences(): { table: string; parent: string }[] {
    return this.s.foreignKeyCheck.all().map((r) => ({ table: r.table, parent: r.parent }))
  }

  /**
   * A restore in several short transactions, for a file no one else has open yet (import's new workspace file):
   * foreign keys are off meanwhile, so rows that refer to each other can land in different transactions, and
   * danglingReferencesIn checks them table by table at the end. The caller deletes the file if anything fails.
   */
  beginSlicedRestore(): void {
    this.db.pragma('foreign_keys = OFF')
  }

  /** Runs one slice of a sliced restore in its own IMMEDIATE transaction. fn must be synchronous. */
  restoreSlice<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate()
  }

  /** The user tables with foreign keys, for danglingReferencesIn. */
  tablesWithForeignKeys(): string[] {
    return this.db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES%' ORDER BY name",
      )
      .all()
      .map((r) => r.name)
  }

  /** PRAGMA foreign_key_check of one table (a sliced restore checks one table at a time). */
  danglingReferencesIn(table: string): { table: string; parent: string }[] {
    return this.db
      .prepare<[], { table: string; parent: string }>(`PRAGMA foreign_key_check("${table.replaceAll('"', '""')}")`)
      .all()
      .map((r) => ({ table: r.table, parent: r.parent }))
  }

  endSlicedRestore(): void {
    this.db.pragma('foreign_keys = ON')
  }

  notices(): NoticeRow[] {
    return this.s.notices.all()
  }

  setMeta(key: string, value: string): void {
    this.s.setMeta.run(key, value)
  }

  /** An imported member: no key comes with it, neither a key nor where one is (api_key_ref stays NULL). */
  insertMember(
    row: Omit<MemberRow, 'session_start' | 'agent_interrupt' | 'agent_turn_timeout_s' | 'api_key_ref'>,
  ): void {
    this.s.member.run(row)
  }

  insertDecision(row: DecisionRow): void {
    this.s.decision.run(row)
  }

  insertProposal(row: ProposalRow): void {
    this.s.proposal.run(row)
  }

  insertTask(row: TaskRow): void {
    this.s.task.run(row)
  }

  /** A task's attempt links (migration 028), set once every task exists. */
  setAttempt(id: number, attemptOf: number | null, pickedAttempt: number | null): void {
    this.s.attempt.run(attemptOf, pickedAttempt, id)
  }

  insertReport(row: Omit<ReportRow, 'superseded_by'>): void {
    this.s.report.run(row)
  }

  insertClaim(id: number, reportId: number, ordinal: number, text: string): void {
    this.s.claim.run(id, ordinal, text, reportId)
  }

  /** An imported notice lists its reports (report_count stays NULL). */
  insertNotice(row: Omit<NoticeRow, 'report_count'>): void {
    this.s.notice.run(row)
  }

  setCounter(name: string, value: number): void {
    this.s.counter.run(name, value)
  }
}
