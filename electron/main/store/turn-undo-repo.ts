import type { Db } from './connection'
import type { StepRow } from './steps-repo'

/** Where a task's tree was before a turn (steps.checkpoint, migration 030). */
export interface TurnCheckpoint {
  task: number
  /** The commit HEAD was at. */
  commit: string
  /** Everything in the tree, committed or not: a tree object in Concord's snapshot store. */
  tree: string
  /** The task's base then. */
  base: string
}

/** A turn undone (steps.undone). */
export interface TurnUndone {
  at: string
  /** The commit the tree is back at (the checkpoint's). */
  commit: string
  /** What was in the tree at the undo, kept in the task's tree under this ref, as a commit on the head it had. */
  keptRef: string
  keptCommit: string
  /** The head the tree had at the undo. */
  from: string
  /** The tree is byte for byte what it was before the turn (checked after the undo). */
  exact: boolean
}

/** Checkpoints of turns in a task's tree, turns undone and the commits an undo took off a branch (migration 030). */
export class TurnUndoRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      setCheckpoint: db.prepare<[string, number]>('UPDATE steps SET checkpoint = ? WHERE id = ?'),
      setUndone: db.prepare<[string, number]>('UPDATE steps SET undone = ? WHERE id = ? AND undone IS NULL'),
      // A later turn in the same task's tree, by anyone, still in force and that changed the tree (its changes are
      // on its last step): a turn that only talked leaves the tree as the one before left it.
      laterInForce: db.prepare<[number, number], StepRow>(
        `SELECT * FROM steps s WHERE s.checkpoint IS NOT NULL AND s.id > ? AND s.undone IS NULL
         AND json_extract(s.checkpoint, '$.task') = ?
         AND EXISTS (SELECT 1 FROM steps c WHERE c.member_id = s.member_id AND c.id >= s.id AND c.turn_id = s.id AND c.changes IS NOT NULL)
         ORDER BY s.id DESC LIMIT 1`,
      ),
      addCommit: db.prepare<[number, string, number]>(
        'INSERT OR IGNORE INTO undone_commits (task_id, commit_sha, turn_id) VALUES (?, ?, ?)',
      ),
      isUndone: db
        .prepare<[number, string], number>('SELECT 1 FROM undone_commits WHERE task_id = ? AND commit_sha = ?')
        .pluck(),
      commitsOf: db.prepare<[number], { commit_sha: string }>(
        'SELECT commit_sha FROM undone_commits WHERE task_id = ?',
      ),
      // The member's undone turns it has not been told of yet are told at the start of this turn.
      tell: db.prepare<[number, number]>(
        'UPDATE steps SET undone_told = ? WHERE member_id = ? AND undone IS NOT NULL AND undone_told IS NULL',
      ),
      // The member's latest turn is the turn of its newest step that has one (queued messages have none yet).
      toldIn: db.prepare<[number, number], StepRow>(
        `SELECT * FROM steps WHERE member_id = ? AND undone IS NOT NULL AND undone_told = (
           SELECT turn_id FROM steps WHERE member_id = ? AND turn_id IS NOT NULL ORDER BY id DESC LIMIT 1
         ) ORDER BY id`,
      ),
    }
  }

  setCheckpoint(turnId: number, c: TurnCheckpoint): void {
    this.s.setCheckpoint.run(JSON.stringify(c), turnId)
  }

  /** Marks a turn undone; false when it was undone already. */
  setUndone(turnId: number, u: TurnUndone): boolean {
    return this.s.setUndone.run(JSON.stringify(u), turnId).changes === 1
  }

  laterInForce(turnId: number, taskRowId: number): StepRow | undefined {
    return this.s.laterInForce.get(turnId, taskRowId)
  }

  addCommits(taskRowId: number, commits: string[], turnId: number): void {
    for (const c of commits) this.s.addCommit.run(taskRowId, c, turnId)
  }

  isUndone(taskRowId: number, commit: string): boolean {
    return this.s.isUndone.get(taskRowId, commit) === 1
  }

  /** The commits undone on each of these tasks (for readiness: a report on one offers no delivery). */
  commitsAmong(taskRowIds: number[]): Map<number, Set<string>> {
    const out = new Map<number, Set<string>>()
    for (const id of new Set(taskRowIds)) {
      const rows = this.s.commitsOf.all(id)
      if (rows.length) out.set(id, new Set(rows.map((r) => r.commit_sha)))
    }
    return out
  }

  /** The member's turn `turnId` starts: the undone turns it was not told of are told in this one. */
  tell(memberRowId: number, turnId: number): void {
    this.s.tell.run(turnId, memberRowId)
  }

  /** The undone turns the member is told of in its current (latest) turn. */
  toldInLatest(memberRowId: number): StepRow[] {
    return this.s.toldIn.all(memberRowId, memberRowId)
  }
}

export const parseCheckpoint = (r: Pick<StepRow, 'checkpoint'>): TurnCheckpoint | null =>
  r.checkpoint ? (JSON.parse(r.checkpoint) as TurnCheckpoint) : null

export const parseUndone = (r: Pick<StepRow, 'undone'>): TurnUndone | null =>
  r.undone ? (JSON.parse(r.undone) as TurnUndone) : null
