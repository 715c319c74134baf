import type { Db } from './connection'

export type TaskStatusValue = 'todo' | 'in_progress' | 'delivered' | 'accepted' | 'blocked' | 'cancelled'
export type TaskFlagValue = 'requirements_updated' | 'needs_adjustment' | 'needs_reverification'

export interface TaskRow {
  id: number
  title: string
  spec: string
  acceptance_criteria: string
  status: TaskStatusValue
  assignee_id: number | null
  flag: TaskFlagValue | null
  artifact_commit: string | null
  artifact_digest: string | null
  required_reports: string
  version: number
  /** Set while the task is archived: out of lists and pages, kept in the store and the export. */
  archived_at: string | null
  created_at: string
  updated_at: string
}

export interface TaskLinkRow {
  task_id: number
  decision_id: number
  pinned_version: number
  pinned_fingerprint: string
  current_version: number
  current_fingerprint: string
}

export interface FlaggedTaskRow {
  id: number
  old_status: TaskStatusValue
  status: TaskStatusValue
  flag: TaskFlagValue
  assignee_id: number | null
}

export class TasksRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO tasks (title, spec, acceptance_criteria, status, assignee_id, required_reports, created_at, updated_at)
         VALUES (@title, @spec, @acceptance_criteria, 'todo', @assignee_id, @required_reports, @created_at, @created_at)`,
      ),
      update: db.prepare(
        `UPDATE tasks SET title = @title, spec = @spec, acceptance_criteria = @acceptance_criteria, assignee_id = @assignee_id,
         required_reports = @required_reports, status = @status, flag = @flag, artifact_commit = @artifact_commit,
         artifact_digest = @artifact_digest, version = version + 1, updated_at = @updated_at WHERE id = @id`,
      ),
      get: db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE id = ?'),
      list: db.prepare<[], TaskRow>('SELECT * FROM tasks WHERE archived_at IS NULL ORDER BY id'),
      listAll: db.prepare<[], TaskRow>('SELECT * FROM tasks ORDER BY id'),
      listByAssignee: db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE assignee_id = ? AND archived_at IS NULL ORDER BY id'),
      insertLink: db.prepare('INSERT INTO task_links (decision_id, task_id, pinned_version, pinned_fingerprint) VALUES (?, ?, ?, ?)'),
      deleteLinks: db.prepare('DELETE FROM task_links WHERE task_id = ?'),
      links: db.prepare<[number], TaskLinkRow>(
        `SELECT l.task_id, l.decision_id, l.pinned_version, l.pinned_fingerprint, d.version AS current_version, d.fingerprint AS current_fingerprint
         FROM task_links l JOIN decisions d ON d.id = l.decision_id WHERE l.task_id = ? ORDER BY l.decision_id`,
      ),
      repinLinks: db.prepare(
        `UPDATE task_links SET pinned_version = (SELECT version FROM decisions WHERE id = decision_id),
         pinned_fingerprint = (SELECT fingerprint FROM decisions WHERE id = decision_id) WHERE task_id = ?`,
      ),
      insertBlocker: db.prepare('INSERT INTO task_blockers (task_id, blocker_id) VALUES (?, ?)'),
      deleteBlockers: db.prepare('DELETE FROM task_blockers WHERE task_id = ?'),
      blockers: db.prepare<[number], number>('SELECT blocker_id FROM task_blockers WHERE task_id = ? ORDER BY blocker_id').pluck(),
      openBlockers: db
        .prepare<[number], number>(
          `SELECT b.blocker_id FROM task_blockers b JOIN tasks t ON t.id = b.blocker_id
           WHERE b.task_id = ? AND t.status NOT IN ('accepted', 'cancelled') ORDER BY b.blocker_id`,
        )
        .pluck(),
      dependents: db.prepare<[number, string], { id: number; status: TaskStatusValue; flag: TaskFlagValue | null; assignee_id: number | null }>(
        `SELECT t.id, t.status, t.flag, t.assignee_id FROM task_links l JOIN tasks t ON t.id = l.task_id
         WHERE l.decision_id = ? AND l.pinned_fingerprint <> ? AND t.status <> 'cancelled' ORDER BY t.id`,
      ),
      // One statement flags every dependent task by its status, keeping a stronger flag it already has;
      // acceptance is revoked (accepted → delivered). Links already at the new content are left alone.
      flagDependents: db.prepare<[string, number, string], FlaggedTaskRow>(
        `UPDATE tasks SET
           flag = CASE
             WHEN status IN ('delivered', 'accepted') OR flag = 'needs_reverification' THEN 'needs_reverification'
             WHEN status = 'in_progress' OR flag = 'needs_adjustment' THEN 'needs_adjustment'
             ELSE 'requirements_updated' END,
           status = CASE status WHEN 'accepted' THEN 'delivered' ELSE status END,
           version = version + 1,
           updated_at = ?
         WHERE id IN (SELECT task_id FROM task_links WHERE decision_id = ? AND pinned_fingerprint <> ?)
           AND status <> 'cancelled'
         RETURNING id, status, flag, assignee_id, status AS old_status`,
      ),
      acceptedIds: db
        .prepare<[number, string], number>(
          `SELECT t.id FROM task_links l JOIN tasks t ON t.id = l.task_id
           WHERE l.decision_id = ? AND l.pinned_fingerprint <> ? AND t.status = 'accepted'`,
        )
        .pluck(),
    }
  }

  insert(row: Pick<TaskRow, 'title' | 'spec' | 'acceptance_criteria' | 'assignee_id' | 'required_reports' | 'created_at'>): number {
    return Number(this.s.insert.run(row).lastInsertRowid)
  }

  update(row: Omit<TaskRow, 'version' | 'created_at'>): void {
    this.s.update.run(row)
  }

  get(id: number): TaskRow | undefined {
    return this.s.get.get(id)
  }

  /** Tasks not archived (of one assignee); `includeArchived` (every task) for the export and the Archived view. */
  list(assigneeId?: number, includeArchived = false): TaskRow[] {
    if (includeArchived && assigneeId === undefined) return this.s.listAll.all()
    return assigneeId === undefined ? this.s.list.all() : this.s.listByAssignee.all(assigneeId)
  }

  links(taskId: number): TaskLinkRow[] {
    return this.s.links.all(taskId)
  }

  replaceLinks(taskId: number, links: { decisionId: number; version: number; fingerprint: string }[]): void {
    this.s.deleteLinks.run(taskId)
    for (const l of links) this.s.insertLink.run(l.decisionId, taskId, l.version, l.fingerprint)
  }

  repinLinks(taskId: number): void {
    this.s.repinLinks.run(taskId)
  }

  blockers(taskId: number): number[] {
    return this.s.blockers.all(taskId)
  }

  openBlockers(taskId: number): number[] {
    return this.s.openBlockers.all(taskId)
  }

  replaceBlockers(taskId: number, blockerIds: number[]): void {
    this.s.deleteBlockers.run(taskId)
    for (const b of blockerIds) this.s.insertBlocker.run(taskId, b)
  }

  /** Tasks whose link to the decision does not match `fingerprint` (what a change to it would flag). */
  dependentsNotAt(decisionId: number, fingerprint: string) {
    return this.s.dependents.all(decisionId, fingerprint)
  }

  /**
   * Flags every live task whose link is not aligned with the decision's new content. Returns them
   * with the status they had before (to tell whose acceptance was revoked).
   */
  flagDependents(decisionId: number, newFingerprint: string, at: string): FlaggedTaskRow[] {
    const revoked = new Set(this.s.acceptedIds.all(decisionId, newFingerprint))
    const rows = this.s.flagDependents.all(at, decisionId, newFingerprint)
    for (const r of rows) r.old_status = revoked.has(r.id) ? 'accepted' : r.status
    return rows.sort((a, b) => a.id - b.id)
  }
}
