import type { Statement } from 'better-sqlite3'
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

/** One task an edit flagged, as impact_tasks recorded it. */
export interface ImpactTaskRow {
  task_id: number
  old_status: TaskStatusValue
  status: TaskStatusValue
  flag: TaskFlagValue
  assignee_id: number | null
}

export interface ImpactTaskCounts {
  tasks: number
  requirementsUpdated: number
  needsAdjustment: number
  needsReverification: number
  acceptanceRevoked: number
}

export interface TaskBranchInfo {
  task_id: number
  branch: string
  head: string
  merged_commit: string | null
  merged_at: string | null
}

export interface TaskFilter {
  statuses?: TaskStatusValue[]
  assigneeId?: number
  /** Has a flag or a suspect link (false: neither). */
  flagged?: boolean
  decisionId?: number
}

export class TasksRepo {
  private readonly s
  /** tasks.page statements, prepared once per combination of filters. */
  private readonly pages = new Map<string, { rows: Statement; total: Statement }>()

  constructor(private readonly db: Db) {
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
      listByAssignee: db.prepare<[number], TaskRow>(
        'SELECT * FROM tasks WHERE assignee_id = ? AND archived_at IS NULL ORDER BY id',
      ),
      insertLink: db.prepare(
        'INSERT INTO task_links (decision_id, task_id, pinned_version, pinned_fingerprint) VALUES (?, ?, ?, ?)',
      ),
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
      blockers: db
        .prepare<[number], number>('SELECT blocker_id FROM task_blockers WHERE task_id = ? ORDER BY blocker_id')
        .pluck(),
      openBlockers: db
        .prepare<[number], number>(
          `SELECT b.blocker_id FROM task_blockers b JOIN tasks t ON t.id = b.blocker_id
           WHERE b.task_id = ? AND t.status NOT IN ('accepted', 'cancelled') ORDER BY b.blocker_id`,
        )
        .pluck(),
      dependents: db.prepare<
        [number, string],
        { id: number; status: TaskStatusValue; flag: TaskFlagValue | null; assignee_id: number | null }
      >(
        `SELECT t.id, t.status, t.flag, t.assignee_id FROM task_links l JOIN tasks t ON t.id = l.task_id
         WHERE l.decision_id = ? AND l.pinned_fingerprint <> ? AND t.status <> 'cancelled' AND NOT EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = t.id AND b.merged_at IS NOT NULL) ORDER BY t.id`,
      ),
      // A merged task stays merged when a decision it implemented changes: a follow-up task carries the change.
      repinLink: db.prepare(
        'UPDATE task_links SET pinned_version = ?, pinned_fingerprint = ? WHERE task_id = ? AND decision_id = ?',
      ),
      mergedDependents: db.prepare<[number, string], TaskRow>(
        `SELECT t.* FROM task_links l JOIN tasks t ON t.id = l.task_id
         WHERE l.decision_id = ? AND l.pinned_fingerprint <> ? AND t.status <> 'cancelled' AND EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = t.id AND b.merged_at IS NOT NULL) ORDER BY t.id`,
      ),
      // An edit's task impact is written once, with each task's new flag and status (a stronger flag it
      // already has is kept; acceptance is revoked: accepted → delivered), then applied from that record.
      // Links already at the new content are left alone; cancelled tasks are untouched.
      recordImpact: db.prepare<{ d: number; v: number; to: string }>(
        `INSERT INTO impact_tasks (decision_id, version, task_id, old_status, status, flag, assignee_id)
         SELECT @d, @v, t.id, t.status, CASE t.status WHEN 'accepted' THEN 'delivered' ELSE t.status END,
           CASE
             WHEN t.status IN ('delivered', 'accepted') OR t.flag = 'needs_reverification' THEN 'needs_reverification'
             WHEN t.status = 'in_progress' OR t.flag = 'needs_adjustment' THEN 'needs_adjustment'
             ELSE 'requirements_updated' END,
           t.assignee_id
         FROM task_links l JOIN tasks t ON t.id = l.task_id
         WHERE l.decision_id = @d AND l.pinned_fingerprint <> @to AND t.status <> 'cancelled' AND NOT EXISTS (SELECT 1 FROM task_branches b WHERE b.task_id = t.id AND b.merged_at IS NOT NULL)`,
      ),
      applyImpact: db.prepare<{ d: number; v: number; at: string }>(
        `UPDATE tasks SET flag = i.flag, status = i.status, version = tasks.version + 1, updated_at = @at
         FROM impact_tasks i WHERE i.decision_id = @d AND i.version = @v AND tasks.id = i.task_id`,
      ),
      impactCounts: db.prepare<{ d: number; v: number }, ImpactTaskCounts>(
        `SELECT count(*) AS tasks, coalesce(sum(flag = 'requirements_updated'), 0) AS requirementsUpdated,
           coalesce(sum(flag = 'needs_adjustment'), 0) AS needsAdjustment, coalesce(sum(flag = 'needs_reverification'), 0) AS needsReverification,
           coalesce(sum(old_status = 'accepted'), 0) AS acceptanceRevoked
         FROM impact_tasks WHERE decision_id = @d AND version = @v`,
      ),
      impactPage: db.prepare<{ d: number; v: number; after: number; limit: number }, ImpactTaskRow>(
        `SELECT task_id, old_status, status, flag, assignee_id FROM impact_tasks
         WHERE decision_id = @d AND version = @v AND task_id > @after ORDER BY task_id LIMIT @limit`,
      ),
      // Assignees told at once (in progress or delivered/accepted before the edit), each with [[task, flag], …].
      impactRecipients: db.prepare<
        { d: number; v: number; actor: number | null },
        { assignee_id: number; tasks: string }
      >(
        `SELECT assignee_id, json_group_array(json_array(task_id, flag)) AS tasks FROM
           (SELECT assignee_id, task_id, flag FROM impact_tasks
            WHERE decision_id = @d AND version = @v AND assignee_id IS NOT NULL AND assignee_id IS NOT @actor
              AND old_status IN ('in_progress', 'delivered', 'accepted') ORDER BY task_id)
         GROUP BY assignee_id ORDER BY assignee_id`,
      ),
      // Set-wise reads: one statement per related table for a whole page of tasks (ids as a JSON array).
      getMany: db.prepare<[string], TaskRow>(
        'SELECT * FROM tasks WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      linksOf: db.prepare<[string], TaskLinkRow>(
        `SELECT l.task_id, l.decision_id, l.pinned_version, l.pinned_fingerprint, d.version AS current_version, d.fingerprint AS current_fingerprint
         FROM task_links l JOIN decisions d ON d.id = l.decision_id WHERE l.task_id IN (SELECT value FROM json_each(?)) ORDER BY l.task_id, l.decision_id`,
      ),
      blockersOf: db.prepare<[string], { task_id: number; blocker_id: number }>(
        'SELECT task_id, blocker_id FROM task_blockers WHERE task_id IN (SELECT value FROM json_each(?)) ORDER BY task_id, blocker_id',
      ),
      branchesOf: db.prepare<[string], TaskBranchInfo>(
        'SELECT task_id, branch, head, merged_commit, merged_at FROM task_branches WHERE task_id IN (SELECT value FROM json_each(?))',
      ),
    }
  }

  insert(
    row: Pick<TaskRow, 'title' | 'spec' | 'acceptance_criteria' | 'assignee_id' | 'required_reports' | 'created_at'>,
  ): number {
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

  /** Merged tasks linked to the decision at another content than `fingerprint` (outside the impact: see mergedDependents). */
  mergedDependentsNotAt(decisionId: number, fingerprint: string): TaskRow[] {
    return this.s.mergedDependents.all(decisionId, fingerprint)
  }

  /** One link pinned to a decision's content (a merged task whose follow-up carries the change). */
  repinLink(taskId: number, decisionId: number, version: number, fingerprint: string): void {
    this.s.repinLink.run(version, fingerprint, taskId, decisionId)
  }

  /** Records and applies the task impact of the edit that produced (decisionId, version): see recordImpact. */
  flagDependents(decisionId: number, version: number, newFingerprint: string, at: string): void {
    this.s.recordImpact.run({ d: decisionId, v: version, to: newFingerprint })
    this.s.applyImpact.run({ d: decisionId, v: version, at })
  }

  impactCounts(decisionId: number, version: number): ImpactTaskCounts {
    return this.s.impactCounts.get({ d: decisionId, v: version })!
  }

  /** The tasks the edit flagged, in key order, after task `after`. */
  impactPage(decisionId: number, version: number, after: number, limit: number): ImpactTaskRow[] {
    return this.s.impactPage.all({ d: decisionId, v: version, after, limit })
  }

  impactRecipients(
    decisionId: number,
    version: number,
    actorId: number | null,
  ): { assigneeId: number; tasks: [number, TaskFlagValue][] }[] {
    return this.s.impactRecipients
      .all({ d: decisionId, v: version, actor: actorId })
      .map((r) => ({ assigneeId: r.assignee_id, tasks: JSON.parse(r.tasks) as [number, TaskFlagValue][] }))
  }

  getMany(ids: number[]): TaskRow[] {
    return ids.length ? this.s.getMany.all(JSON.stringify(ids)) : []
  }

  /** Links, blockers and branches of a set of tasks, one statement each. */
  related(ids: number[]): {
    links: TaskLinkRow[]
    blockers: { task_id: number; blocker_id: number }[]
    branches: TaskBranchInfo[]
  } {
    if (!ids.length) return { links: [], blockers: [], branches: [] }
    const json = JSON.stringify(ids)
    return {
      links: this.s.linksOf.all(json),
      blockers: this.s.blockersOf.all(json),
      branches: this.s.branchesOf.all(json),
    }
  }

  /** One page of tasks in key order after `after`, filtered, with the number of tasks matching the filters. */
  page(f: TaskFilter, after: number, limit: number): { rows: TaskRow[]; total: number } {
    const key = [
      f.statuses ? 's' : '',
      f.assigneeId !== undefined ? 'a' : '',
      f.flagged === undefined ? '' : f.flagged ? 'f' : 'u',
      f.decisionId !== undefined ? 'd' : '',
    ].join('')
    let q = this.pages.get(key)
    if (!q) {
      // Archived tasks are in no page (archive.list shows them).
      const where: string[] = ['t.archived_at IS NULL']
      if (f.statuses) where.push('t.status IN (SELECT value FROM json_each(@statuses))')
      if (f.assigneeId !== undefined) where.push('t.assignee_id = @assignee')
      if (f.flagged !== undefined) {
        const flagged = `(t.flag IS NOT NULL OR EXISTS (SELECT 1 FROM task_links l JOIN decisions d ON d.id = l.decision_id
          WHERE l.task_id = t.id AND l.pinned_fingerprint <> d.fingerprint))`
        where.push(f.flagged ? flagged : `NOT ${flagged}`)
      }
      if (f.decisionId !== undefined)
        where.push('EXISTS (SELECT 1 FROM task_links l WHERE l.decision_id = @decision AND l.task_id = t.id)')
      const cond = where.length ? where.join(' AND ') : '1'
      q = {
        rows: this.db.prepare(`SELECT t.* FROM tasks t WHERE ${cond} AND t.id > @after ORDER BY t.id LIMIT @limit`),
        total: this.db.prepare(`SELECT count(*) FROM tasks t WHERE ${cond}`).pluck(),
      }
      this.pages.set(key, q)
    }
    const args: Record<string, unknown> = {}
    if (f.statuses) args.statuses = JSON.stringify(f.statuses)
    if (f.assigneeId !== undefined) args.assignee = f.assigneeId
    if (f.decisionId !== undefined) args.decision = f.decisionId
    return { rows: q.rows.all({ ...args, after, limit }) as TaskRow[], total: q.total.get(args) as number }
  }
}
