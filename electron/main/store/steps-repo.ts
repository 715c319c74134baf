import type { Db } from './connection'

export type StepKindValue = 'user' | 'message' | 'model' | 'tool' | 'notice' | 'error' | 'interrupted' | 'plan'
export type StepStatusValue = 'queued' | 'streaming' | 'running' | 'waiting_approval' | 'done' | 'denied' | 'error' | 'interrupted'

export interface StepRow {
  id: number
  member_id: number
  turn_id: number | null
  kind: StepKindValue
  status: StepStatusValue
  text: string
  tool_calls: string
  tool_call_id: string | null
  tool_name: string | null
  tool_args: string | null
  is_error: number
  from_member_id: number | null
  task_id: number | null
  input_tokens: number | null
  output_tokens: number | null
  started_at: string
  ended_at: string | null
}

export type NewStep = Partial<Omit<StepRow, 'id' | 'member_id' | 'kind' | 'status' | 'started_at'>> &
  Pick<StepRow, 'member_id' | 'kind' | 'status' | 'started_at'>

const columns = [
  'member_id', 'turn_id', 'kind', 'status', 'text', 'tool_calls', 'tool_call_id', 'tool_name', 'tool_args', 'is_error',
  'from_member_id', 'task_id', 'input_tokens', 'output_tokens', 'started_at', 'ended_at',
] as const

export class StepsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(`INSERT INTO steps (${columns.join(', ')}) VALUES (${columns.map((c) => '@' + c).join(', ')})`),
      get: db.prepare<[number], StepRow>('SELECT * FROM steps WHERE id = ?'),
      setText: db.prepare('UPDATE steps SET text = ? WHERE id = ?'),
      finish: db.prepare(
        `UPDATE steps SET status = @status, text = coalesce(@text, text), tool_calls = coalesce(@tool_calls, tool_calls),
         is_error = coalesce(@is_error, is_error), input_tokens = coalesce(@input_tokens, input_tokens),
         output_tokens = coalesce(@output_tokens, output_tokens), ended_at = @ended_at WHERE id = @id`,
      ),
      setStatus: db.prepare('UPDATE steps SET status = ? WHERE id = ?'),
      startTurn: db.prepare("UPDATE steps SET status = 'done', turn_id = id WHERE id = ? AND status = 'queued'"),
      page: db.prepare<[number, number, number], StepRow>('SELECT * FROM steps WHERE member_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
      recent: db.prepare<[number, number], StepRow>('SELECT * FROM steps WHERE member_id = ? ORDER BY id DESC LIMIT ?'),
      since: db.prepare<[number, number], StepRow>('SELECT * FROM steps WHERE member_id = ? AND id >= ? ORDER BY id'),
      nextQueued: db.prepare<[number], StepRow>("SELECT * FROM steps WHERE member_id = ? AND status = 'queued' ORDER BY id LIMIT 1"),
      queuedCount: db.prepare<[number], number>("SELECT count(*) FROM steps WHERE member_id = ? AND status = 'queued'").pluck(),
      open: db.prepare<[], StepRow>("SELECT * FROM steps WHERE status IN ('streaming','running','waiting_approval') ORDER BY id"),
      usageByMember: db.prepare<[], { member_id: number; input: number; output: number }>(
        `SELECT member_id, coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output
         FROM steps WHERE input_tokens IS NOT NULL GROUP BY member_id ORDER BY member_id`,
      ),
      usageByTask: db.prepare<[], { task_id: number; input: number; output: number }>(
        `SELECT task_id, coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output
         FROM steps WHERE input_tokens IS NOT NULL AND task_id IS NOT NULL GROUP BY task_id ORDER BY task_id`,
      ),
      latestPlan: db.prepare<[number], StepRow>("SELECT * FROM steps WHERE member_id = ? AND kind = 'plan' AND status = 'done' ORDER BY id DESC LIMIT 1"),
      // Both walk the member's index backwards from its newest step: the question search only as far
      // back as the human's last message.
      lastUserStep: db.prepare<[number], number>("SELECT id FROM steps WHERE member_id = ? AND kind = 'user' ORDER BY id DESC LIMIT 1").pluck(),
      questionSince: db.prepare<[number, number], { id: number; tool_args: string | null }>(
        "SELECT id, tool_args FROM steps WHERE member_id = ? AND id > ? AND kind = 'tool' AND tool_name = 'ask_human' AND status = 'done' AND is_error = 0 ORDER BY id DESC LIMIT 1",
      ),
    }
  }

  insert(step: NewStep): number {
    const row: Record<string, unknown> = {}
    for (const c of columns) row[c] = step[c as keyof NewStep] ?? null
    row.text = step.text ?? ''
    row.tool_calls = step.tool_calls ?? '[]'
    row.is_error = step.is_error ?? 0
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  get(id: number): StepRow | undefined {
    return this.s.get.get(id)
  }

  setText(id: number, text: string): void {
    this.s.setText.run(text, id)
  }

  finish(
    id: number,
    f: { status: StepStatusValue; text?: string; tool_calls?: string; is_error?: number; input_tokens?: number; output_tokens?: number; ended_at: string },
  ): void {
    this.s.finish.run({ id, text: null, tool_calls: null, is_error: null, input_tokens: null, output_tokens: null, ...f })
  }

  setStatus(id: number, status: StepStatusValue): void {
    this.s.setStatus.run(status, id)
  }

  /** A queued inbox message becomes the start of a turn; false if it was not queued any more. */
  startTurn(id: number): boolean {
    return this.s.startTurn.run(id).changes === 1
  }

  /** Up to `limit` steps before `before` (exclusive), in ascending order. */
  page(memberId: number, before: number, limit: number): StepRow[] {
    return this.s.page.all(memberId, before, limit).reverse()
  }

  recent(memberId: number, limit: number): StepRow[] {
    return this.s.recent.all(memberId, limit).reverse()
  }

  since(memberId: number, fromId: number): StepRow[] {
    return this.s.since.all(memberId, fromId)
  }

  nextQueued(memberId: number): StepRow | undefined {
    return this.s.nextQueued.get(memberId)
  }

  queuedCount(memberId: number): number {
    return this.s.queuedCount.get(memberId) ?? 0
  }

  /** Steps a previous process left in flight (it stopped or crashed mid-turn). */
  open(): StepRow[] {
    return this.s.open.all()
  }

  usageByMember() {
    return this.s.usageByMember.all()
  }

  usageByTask() {
    return this.s.usageByTask.all()
  }

  latestPlan(memberId: number): StepRow | undefined {
    return this.s.latestPlan.get(memberId)
  }

  /** The member's latest ask_human call that the human has not answered (sent a message after) yet. */
  openQuestion(memberId: number): { id: number; tool_args: string | null } | undefined {
    return this.s.questionSince.get(memberId, this.s.lastUserStep.get(memberId) ?? 0)
  }
}
