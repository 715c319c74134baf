import type { DecisionStatusValue } from '../../../shared/enums'
import type { Db } from './connection'

export interface ProposalRow {
  id: number
  decision_id: number
  author_id: number | null
  base_version: number
  title: string | null
  statement: string | null
  rationale: string | null
  status: DecisionStatusValue | null
  reason: string
  state: 'pending' | 'accepted' | 'rejected'
  decided_by: number | null
  decided_at: string | null
  decision_reason: string | null
  source_message_id: string | null
  created_at: string
}

export class ProposalsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO proposals (decision_id, author_id, base_version, title, statement, rationale, status, reason, source_message_id, created_at)
         VALUES (@decision_id, @author_id, @base_version, @title, @statement, @rationale, @status, @reason, @source_message_id, @created_at)`,
      ),
      decide: db.prepare(
        `UPDATE proposals SET state = @state, decided_by = @decided_by, decided_at = @decided_at, decision_reason = @decision_reason
         WHERE id = @id AND state = 'pending'`,
      ),
      get: db.prepare<[number], ProposalRow>('SELECT * FROM proposals WHERE id = ?'),
      list: db.prepare<[], ProposalRow>('SELECT * FROM proposals ORDER BY id'),
      listByState: db.prepare<[string], ProposalRow>('SELECT * FROM proposals WHERE state = ? ORDER BY id'),
      acceptedFor: db.prepare<[number], ProposalRow>(
        "SELECT * FROM proposals WHERE decision_id = ? AND state = 'accepted' ORDER BY base_version",
      ),
    }
  }

  insert(row: Omit<ProposalRow, 'id' | 'state' | 'decided_by' | 'decided_at' | 'decision_reason'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  /** Compare-and-set on state: false when the proposal was already decided. */
  decide(
    id: number,
    state: 'accepted' | 'rejected',
    decidedBy: number | null,
    at: string,
    reason: string | null,
  ): boolean {
    return (
      this.s.decide.run({ id, state, decided_by: decidedBy, decided_at: at, decision_reason: reason }).changes === 1
    )
  }

  get(id: number): ProposalRow | undefined {
    return this.s.get.get(id)
  }

  /** The accepted proposals of a decision: each produced the revision after its base version (compare-and-set). */
  acceptedFor(decisionId: number): ProposalRow[] {
    return this.s.acceptedFor.all(decisionId)
  }

  list(state?: string): ProposalRow[] {
    return state ? this.s.listByState.all(state) : this.s.list.all()
  }
}
