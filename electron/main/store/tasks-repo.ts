import type { Statement } from 'better-sqlite3'
import type { Db } from './connection'

import type { TaskFlagValue, TaskStatusValue } from '../../../shared/task-rules'
import { flagOnChangeSql, statusOnChangeSql, taskFlaggedSql, touchedByChangeSql } from './task-rules-sql'

export type { TaskFlagValue, TaskStatusValue }

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
  /** The task this one is an attempt at ("Try it with…", migration 028); null for a task of its own. */
  attempt_of?: number | null
  /** The attempt picked as this task's delivery (migration 028). */
  picked_attempt?: number | null
  created_at: string
  updated_at: string
  /** 1: plan first (migration 029); absent in rows made before it. */
  plan_first?: number
}

export interface TaskLinkRow {
  task_id: number
  decision_id: number
  pinned_version: number
  pinned_fingerprint: string
  current_version: number
  current_fingerprint: string
}

/** One task an edit flagged, as the edit's record (decision_impacts.tasks) keeps it. */
export interface ImpactTaskRow {
  task_id: number
  old_status: TaskStatusValue
  status: TaskStatusValue
  flag: TaskFlagValue
  assignee_id: number | null
}

/** The same, packed as the edit's record stores it: [task, status before, status after, flag, assignee]. */
type ImpactTaskTuple = [number, TaskStatusValue, TaskStatusValue, TaskFlagValue, number | null]

/** The tasks an edit flagged: the record's text (decision_impacts.tasks) and its rows, in key order. */
export interface FlaggedTasks {
  packed: string
  rows: ImpactTaskRow[]
}

export function unpackImpactTasks(packed: string): ImpactTaskRow[] {
  return (JSON.parse(packed) as ImpactTaskTuple[]).map(([task_id, old_status, status, flag, assignee_id]) => ({
    task_id,
    old_status,
    status,
    flag,
    assignee_id,
  }))
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
      inProgress: db.prepare<[number], TaskRow>(
        "SELECT * FROM tasks WHERE assignee_id = ? AND status = 'in_progress' AND archived_at IS NULL ORDER BY id",
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
      // The tasks an edit from another content to @to flags, each with its status and flag before and after
      // (shared/task-rules: the flag rule, revoked acceptance, untouched tasks), then the same set updated.
      // Read as one text, packed as the edit's record keeps it: one string from SQLite instead of a row object per task.
      changeImpact: db
        .prepare<{ d: number; to: string }, string>(
          `SELECT coalesce(json_group_array(json_array(t.id, t.status, ${statusOnChangeSql('t')}, ${flagOnChangeSql('t')}, t.assignee_id)
             ORDER BY t.id), '[]') FROM task_links l JOIN tasks t ON t.id = l.task_id
           WHERE l.decision_id = @d AND l.pinned_fingerprint <> @to AND ${touchedByChangeSql('t')}`,
        )
        .pluck(),
      applyChange: db.prepare<{ d: number; to: string; at: string }>(
        `UPDATE tasks AS t SET status = ${statusOnChangeSql('t')}, flag = ${flagOnChangeSql('t')}, version = t.version + 1, updated_at = @at
         WHERE t.id IN (SELECT task_id FROM task_links WHERE decision_id = @d AND pinned_fingerprint <> @to) AND ${touchedByChangeSql('t')}`,
      ),
      flaggedAmong: db
        .prepare<[string], number>(
          `SELECT t.id FROM tasks t WHERE t.id IN (SELECT value FROM json_each(?)) AND ${taskFlaggedSql('t')}`,
        )
        .pluck(),
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

  /** The assignee's tasks in progress (not archived), without reading the rest of its tasks. */
  inProgress(assigneeId: number): TaskRow[] {
    return this.s.inProgress.all(assigneeId)
  }

  links(taskId: number): TaskLinkRow[] {
    return this.s.links.all(taskId)
  }

  /** The links of each of these tasks (as links() gives them), in one statement. */
  linksByTask(ids: number[]): Map<number, TaskLinkRow[]> {
    const out = new Map<number, TaskLinkRow[]>()
    if (!ids.length) return out
    for (const l of this.s.linksOf.all(JSON.stringify(ids))) {
      const list = out.get(l.task_id)
      if (list) list.push(l)
      else out.set(l.task_id, [l])
    }
    return out
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

  /**
   * Flags the tasks a change of the decision to `newFingerprint` affects, in one set-based update, and returns
   * them as the edit's record keeps them (key order): see changeImpact.
   */
  flagDependents(decisionId: number, newFingerprint: string, at: string): FlaggedTasks {
    const packed = this.s.changeImpact.get({ d: decisionId, to: newFingerprint })!
    const rows = unpackImpactTasks(packed)
    if (rows.length) this.s.applyChange.run({ d: decisionId, to: newFingerprint, at })
    return { packed, rows }
  }

  /** Which of these tasks are flagged: the one home of that rule (taskFlaggedSql), as tasks.page's filter uses it. */
  flaggedAmong(ids: number[]): Set<number> {
    return new Set(ids.length ? this.s.flaggedAmong.all(JSON.stringify(ids)) : [])
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
        const flagged = taskFlaggedSql('t')
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
