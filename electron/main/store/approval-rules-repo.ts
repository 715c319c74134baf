import type { Db } from './connection'

export interface ApprovalRuleRow {
  id: number
  /** null: a rule for the whole team of the workspace. */
  member_id: number | null
  effect: 'allow' | 'deny'
  tool: string | null
  command_prefix: string | null
  path_glob: string | null
  created_at: string
}

export type NewApprovalRule = Omit<ApprovalRuleRow, 'id'>

/** Approval rules (migration 013): allow or deny a tool, a command prefix or a path glob, per member or team. */
export class ApprovalRulesRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      all: db.prepare<[], ApprovalRuleRow>('SELECT * FROM approval_rules ORDER BY id'),
      forMember: db.prepare<[number], ApprovalRuleRow>(
        'SELECT * FROM approval_rules WHERE member_id = ? OR member_id IS NULL ORDER BY id',
      ),
      get: db.prepare<[number], ApprovalRuleRow>('SELECT * FROM approval_rules WHERE id = ?'),
      same: db.prepare<[number | null, string, string | null, string | null, string | null], ApprovalRuleRow>(
        'SELECT * FROM approval_rules WHERE member_id IS ? AND effect = ? AND tool IS ? AND command_prefix IS ? AND path_glob IS ?',
      ),
      insert: db.prepare<NewApprovalRule>(
        'INSERT INTO approval_rules (member_id, effect, tool, command_prefix, path_glob, created_at) VALUES (@member_id, @effect, @tool, @command_prefix, @path_glob, @created_at)',
      ),
      insertWithId: db.prepare<ApprovalRuleRow>(
        'INSERT INTO approval_rules (id, member_id, effect, tool, command_prefix, path_glob, created_at) VALUES (@id, @member_id, @effect, @tool, @command_prefix, @path_glob, @created_at)',
      ),
      remove: db.prepare<[number]>('DELETE FROM approval_rules WHERE id = ?'),
    }
  }

  /** Every rule of the workspace, oldest first. */
  list(): ApprovalRuleRow[] {
    return this.s.all.all()
  }

  /** The rules that apply to one member: its own and the team's. */
  forMember(memberId: number): ApprovalRuleRow[] {
    return this.s.forMember.all(memberId)
  }

  get(id: number): ApprovalRuleRow | undefined {
    return this.s.get.get(id)
  }

  /** Adds a rule; an identical one already there is returned instead. */
  add(rule: NewApprovalRule): ApprovalRuleRow {
    const same = this.s.same.get(rule.member_id, rule.effect, rule.tool, rule.command_prefix, rule.path_glob)
    if (same) return same
    const id = Number(this.s.insert.run(rule).lastInsertRowid)
    return this.get(id)!
  }

  /** An imported rule, with its id (import.ts). */
  insertWithId(rule: ApprovalRuleRow): void {
    this.s.insertWithId.run(rule)
  }

  remove(id: number): boolean {
    return this.s.remove.run(id).changes > 0
  }
}
