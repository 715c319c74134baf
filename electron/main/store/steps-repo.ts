import type { StepKindValue, StepStatusValue } from '../../../shared/enums'
import { announcedVersions, mentionedKeys, parseKey } from '../../../shared/keys'
import type { Db } from './connection'

export type { StepKindValue, StepStatusValue }

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
  /** On a queued message: the approval policy of the turn that sent it (the stricter one applies). */
  approval: 'ask' | 'sandboxed' | 'auto' | null
  /** On the last step of a turn: the files the turn changed in its tree, JSON [{path, status}]. */
  changes: string | null
  /** What the text mentioned when it was stored, JSON PinnedRef[]; null on steps from before schema v7. */
  refs: string | null
  /** On a turn's first step: where its task's tree was before it (turn-undo-repo.ts TurnCheckpoint JSON). */
  checkpoint?: string | null
  /** On a turn's first step, once the turn is undone (TurnUndone JSON). */
  undone?: string | null
  /** The turn at whose start the member was told this one was undone. */
  undone_told?: number | null
  /** How many images the step carries (step-images-repo.ts); absent on rows written before schema 034. */
  images?: number
}

/** A mention resolved when the step's text was stored: the key, and a decision's version at that moment. */
export interface PinnedRef {
  key: string
  version?: number
}

export interface CommandProcessRow {
  id: number
  step_id: number | null
  pid: number
  pgid: number
  start_time: string | null
  started_at: string
}

export type NewStep = Partial<Omit<StepRow, 'id' | 'member_id' | 'kind' | 'status' | 'started_at'>> &
  Pick<StepRow, 'member_id' | 'kind' | 'status' | 'started_at'>

const columns = [
  'member_id',
  'turn_id',
  'kind',
  'status',
  'text',
  'tool_calls',
  'tool_call_id',
  'tool_name',
  'tool_args',
  'is_error',
  'from_member_id',
  'task_id',
  'input_tokens',
  'output_tokens',
  'started_at',
  'ended_at',
  'approval',
  'changes',
  'refs',
] as const

export class StepsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO steps (${columns.join(', ')}) VALUES (${columns.map((c) => '@' + c).join(', ')})`,
      ),
      get: db.prepare<[number], StepRow>('SELECT * FROM steps WHERE id = ?'),
      // A streaming step's text is saved as it grows; its pins wait for the final text (finish).
      setText: db.prepare<[string, number], { kind: StepKindValue; status: StepStatusValue }>(
        'UPDATE steps SET text = ? WHERE id = ? RETURNING kind, status',
      ),
      setRefs: db.prepare('UPDATE steps SET refs = ? WHERE id = ?'),
      textOf: db.prepare<[number], { kind: StepKindValue; text: string }>('SELECT kind, text FROM steps WHERE id = ?'),
      decisionVersion: db.prepare<[number], number>('SELECT version FROM decisions WHERE id = ?').pluck(),
      revisionExists: db
        .prepare<[number, number], number>('SELECT 1 FROM decision_revisions WHERE decision_id = ? AND version = ?')
        .pluck(),
      taskExists: db.prepare<[number], number>('SELECT 1 FROM tasks WHERE id = ?').pluck(),
      reportExists: db.prepare<[number], number>('SELECT 1 FROM reports WHERE id = ?').pluck(),
      finish: db.prepare(
        `UPDATE steps SET status = @status, text = coalesce(@text, text), tool_calls = coalesce(@tool_calls, tool_calls),
         is_error = coalesce(@is_error, is_error), input_tokens = coalesce(@input_tokens, input_tokens),
         output_tokens = coalesce(@output_tokens, output_tokens), model = coalesce(@model, model),
         ended_at = @ended_at, refs = @refs WHERE id = @id`,
      ),
      setStatus: db.prepare('UPDATE steps SET status = ? WHERE id = ?'),
      setTask: db.prepare('UPDATE steps SET task_id = ? WHERE id = ?'),
      setTool: db.prepare('UPDATE steps SET tool_name = ?, tool_args = ? WHERE id = ?'),
      remove: db.prepare("DELETE FROM steps WHERE id = ? AND status = 'queued'"),
      setChanges: db.prepare('UPDATE steps SET changes = ? WHERE id = ?'),
      lastOfTurn: db.prepare<[number], StepRow>('SELECT * FROM steps WHERE turn_id = ? ORDER BY id DESC LIMIT 1'),
      startTurn: db.prepare("UPDATE steps SET status = 'done', turn_id = id WHERE id = ? AND status = 'queued'"),
      page: db.prepare<[number, number, number, number], StepRow>(
        'SELECT * FROM steps WHERE member_id = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?',
      ),
      // Walks the member's index backwards, keeping the task's steps (every step of a turn carries its task).
      pageOfTask: db.prepare<[number, number, number, number], StepRow>(
        'SELECT * FROM steps WHERE member_id = ? AND task_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
      ),
      recent: db.prepare<[number, number, number], StepRow>(
        'SELECT * FROM steps WHERE member_id = ? AND id > ? ORDER BY id DESC LIMIT ?',
      ),
      lastId: db.prepare<[number], number>('SELECT coalesce(max(id), 0) FROM steps WHERE member_id = ?').pluck(),
      addProcess: db.prepare(
        'INSERT INTO command_processes (step_id, pid, pgid, start_time, started_at) VALUES (?, ?, ?, ?, ?)',
      ),
      removeProcess: db.prepare('DELETE FROM command_processes WHERE id = ?'),
      processes: db.prepare<[], CommandProcessRow>('SELECT * FROM command_processes ORDER BY id'),
      clearProcesses: db.prepare('DELETE FROM command_processes'),
      since: db.prepare<[number, number], StepRow>('SELECT * FROM steps WHERE member_id = ? AND id >= ? ORDER BY id'),
      nextQueued: db.prepare<[number], StepRow>(
        "SELECT * FROM steps WHERE member_id = ? AND status = 'queued' ORDER BY id LIMIT 1",
      ),
      queuedCount: db
        .prepare<[number], number>("SELECT count(*) FROM steps WHERE member_id = ? AND status = 'queued'")
        .pluck(),
      openOfTurn: db.prepare<[number], StepRow>(
        "SELECT * FROM steps WHERE turn_id = ? AND status IN ('streaming','running','waiting_approval') ORDER BY id",
      ),
      open: db.prepare<[], StepRow>(
        "SELECT * FROM steps WHERE status IN ('streaming','running','waiting_approval') ORDER BY id",
      ),
      latestPlan: db.prepare<[number], StepRow>(
        "SELECT * FROM steps WHERE member_id = ? AND kind = 'plan' AND status = 'done' ORDER BY id DESC LIMIT 1",
      ),
      // Both walk the member's index backwards from its newest step: the question search only as far
      // back as the human's last message.
      lastUserStep: db
        .prepare<[number], number>(
          "SELECT id FROM steps WHERE member_id = ? AND kind = 'user' ORDER BY id DESC LIMIT 1",
        )
        .pluck(),
      questionSince: db.prepare<[number, number], { id: number; tool_args: string | null }>(
        "SELECT id, tool_args FROM steps WHERE member_id = ? AND id > ? AND kind = 'tool' AND tool_name = 'ask_human' AND status = 'done' AND is_error = 0 ORDER BY id DESC LIMIT 1",
      ),
    }
  }

  insert(step: NewStep): number {
    const row: Record<string, unknown> = {}
    for (const c of columns) row[c] = step[c] ?? null
    row.text = step.text ?? ''
    row.tool_calls = step.tool_calls ?? '[]'
    row.is_error = step.is_error ?? 0
    // A step moved as it is (a session reset re-queues messages) keeps the pins it was stored with.
    if (step.refs === undefined)
      row.refs = step.status === 'streaming' ? null : this.pinsJson(step.kind, row.text as string)
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  /**
   * Resolves the keys a text mentions in this workspace: a decision to its version now (a notice to the
   * version it announces), a task or report only if it exists. Unknown keys are not pinned.
   */
  pins(kind: StepKindValue, text: string): PinnedRef[] {
    const announced = kind === 'notice' ? announcedVersions(text) : null
    const out: PinnedRef[] = []
    for (const key of mentionedKeys(text, 'DTR')) {
      const k = parseKey(key)
      if (!k) continue
      if (k.kind === 'decision') {
        const current = this.s.decisionVersion.get(k.n)
        if (current === undefined) continue
        const said = announced?.get(key)
        out.push({ key, version: said !== undefined && this.s.revisionExists.get(k.n, said) ? said : current })
      } else if ((k.kind === 'task' ? this.s.taskExists : this.s.reportExists).get(k.n)) out.push({ key })
    }
    return out
  }

  private pinsJson(kind: StepKindValue, text: string): string {
    return JSON.stringify(this.pins(kind, text))
  }

  get(id: number): StepRow | undefined {
    return this.s.get.get(id)
  }

  setText(id: number, text: string): void {
    const row = this.s.setText.get(text, id)
    // A step that is not streaming (a plan rewritten in place) is final at each write: pin it again.
    if (row && row.status !== 'streaming') this.s.setRefs.run(this.pinsJson(row.kind, text), id)
  }

  /** Stores a step's final state; its pins are taken from its final text, now. */
  finish(
    id: number,
    f: {
      status: StepStatusValue
      text?: string
      tool_calls?: string
      is_error?: number
      input_tokens?: number
      output_tokens?: number
      /** The model a built-in member called (priced from the workspace's table when the figures are read). */
      model?: string | null
      ended_at: string
    },
  ): void {
    const row = this.s.textOf.get(id)
    const refs = row ? this.pinsJson(row.kind, f.text ?? row.text) : null
    this.s.finish.run({
      id,
      text: null,
      tool_calls: null,
      is_error: null,
      input_tokens: null,
      output_tokens: null,
      model: null,
      ...f,
      refs,
    })
  }

  setStatus(id: number, status: StepStatusValue): void {
    this.s.setStatus.run(status, id)
  }

  /** The task a turn's first step works on, once the turn chose it (runtime/turn-task.ts). */
  setTask(id: number, taskId: number): void {
    this.s.setTask.run(taskId, id)
  }

  /** A tool step's name and arguments as they become known (an ACP agent streams a call's input after announcing it). */
  setTool(id: number, name: string, argsJson: string): void {
    this.s.setTool.run(name, argsJson, id)
  }

  lastOfTurn(turnId: number): StepRow | undefined {
    return this.s.lastOfTurn.get(turnId)
  }

  setChanges(id: number, changes: string): void {
    this.s.setChanges.run(changes, id)
  }

  /** Removes a step that is still queued (nothing refers to it yet). */
  remove(id: number): void {
    this.s.remove.run(id)
  }

  /** A queued inbox message becomes the start of a turn; false if it was not queued any more. */
  startTurn(id: number): boolean {
    return this.s.startTurn.run(id).changes === 1
  }

  /** Up to `limit` steps before `before` and after `after` (both exclusive), in ascending order. */
  page(memberId: number, before: number, limit: number, after = 0): StepRow[] {
    return this.s.page.all(memberId, before, after, limit).reverse()
  }

  /** Up to `limit` of the member's steps on one task before `before` (exclusive), in ascending order. */
  pageOfTask(memberId: number, taskId: number, before: number, limit: number): StepRow[] {
    return this.s.pageOfTask.all(memberId, taskId, before, limit).reverse()
  }

  /** The newest `limit` steps after `after` (the start of the current conversation), in ascending order. */
  recent(memberId: number, limit: number, after = 0): StepRow[] {
    return this.s.recent.all(memberId, after, limit).reverse()
  }

  /** The id of the member's newest step (0 when it has none). */
  lastId(memberId: number): number {
    return this.s.lastId.get(memberId) ?? 0
  }

  /** A command's process group while it runs; returns the record's id for removeProcess. */
  addProcess(stepId: number | null, pid: number, pgid: number, startTime: string | null, at: string): number {
    return Number(this.s.addProcess.run(stepId, pid, pgid, startTime, at).lastInsertRowid)
  }

  removeProcess(id: number): void {
    this.s.removeProcess.run(id)
  }

  /** Process groups a previous process recorded and did not see end (it stopped or crashed). */
  processes(): CommandProcessRow[] {
    return this.s.processes.all()
  }

  clearProcesses(): void {
    this.s.clearProcesses.run()
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

  /** A turn's steps still in flight: none once the turn has ended, unless a write failed (a full disk). */
  openOfTurn(turnId: number): StepRow[] {
    return this.s.openOfTurn.all(turnId)
  }

  /** Steps a previous process left in flight (it stopped or crashed mid-turn). */
  open(): StepRow[] {
    return this.s.open.all()
  }

  latestPlan(memberId: number): StepRow | undefined {
    return this.s.latestPlan.get(memberId)
  }

  /** The member's latest ask_human call that the human has not answered (sent a message after) yet. */
  openQuestion(memberId: number): { id: number; tool_args: string | null } | undefined {
    return this.s.questionSince.get(memberId, this.s.lastUserStep.get(memberId) ?? 0)
  }
}
