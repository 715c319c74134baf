import type { Db } from './connection'

/** One task's last check against the base branch (schema v19, base_checks). */
export interface BaseCheckRow {
  task_id: number
  base_branch: string
  /** The base branch's head the check was made against. */
  base_head: string
  /** The task's commit that was checked: its delivered commit, or its tree's head while in progress. */
  task_commit: string
  behind: number
  /** JSON BaseOverlap[]: the files both sides changed, by what changed them on the base side. */
  overlaps: string
  /** JSON string[]: the paths a trial merge conflicts in; NULL when it merges cleanly (or merge_tree = 0). */
  conflicts: string | null
  /** 1 when merging the commit lands exactly its own tree (what its reports checked). */
  lands_as_checked: number
  /** 0 when git could not trial-merge (older than 2.38): conflicts are not known. */
  merge_tree: number
  checked_at: string
}

/** Files both sides changed, grouped by who changed them on the base side: a merged task, or null for other commits. */
export interface BaseOverlap {
  taskId: number | null
  files: string[]
}

/** The base branch under the task trees: each task's last check and the head Concord last saw. */
export class BaseRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      upsert: db.prepare(
        `INSERT INTO base_checks (task_id, base_branch, base_head, task_commit, behind, overlaps, conflicts, lands_as_checked, merge_tree, checked_at)
         VALUES (@task_id, @base_branch, @base_head, @task_commit, @behind, @overlaps, @conflicts, @lands_as_checked, @merge_tree, @checked_at)
         ON CONFLICT (task_id) DO UPDATE SET base_branch = excluded.base_branch, base_head = excluded.base_head,
           task_commit = excluded.task_commit, behind = excluded.behind, overlaps = excluded.overlaps,
           conflicts = excluded.conflicts, lands_as_checked = excluded.lands_as_checked,
           merge_tree = excluded.merge_tree, checked_at = excluded.checked_at`,
      ),
      get: db.prepare<[number], BaseCheckRow>('SELECT * FROM base_checks WHERE task_id = ?'),
      among: db.prepare<[string], BaseCheckRow>(
        'SELECT c.* FROM base_checks c WHERE c.task_id IN (SELECT value FROM json_each(?))',
      ),
      remove: db.prepare('DELETE FROM base_checks WHERE task_id = ?'),
      seen: db.prepare<[string], string>('SELECT head FROM base_seen WHERE branch = ?').pluck(),
      setSeen: db.prepare(
        'INSERT INTO base_seen (branch, head, seen_at) VALUES (?, ?, ?) ON CONFLICT (branch) DO UPDATE SET head = excluded.head, seen_at = excluded.seen_at',
      ),
    }
  }

  upsert(row: BaseCheckRow): void {
    this.s.upsert.run(row)
  }

  get(taskId: number): BaseCheckRow | undefined {
    return this.s.get.get(taskId)
  }

  /** The checks of a set of tasks, by task id (one statement for a page of tasks). */
  among(taskIds: number[]): Map<number, BaseCheckRow> {
    if (!taskIds.length) return new Map()
    return new Map(this.s.among.all(JSON.stringify(taskIds)).map((r) => [r.task_id, r]))
  }

  remove(taskId: number): void {
    this.s.remove.run(taskId)
  }

  /** The base branch's head as Concord last saw it; undefined before the first look. */
  seen(branch: string): string | undefined {
    return this.s.seen.get(branch) ?? undefined
  }

  setSeen(branch: string, head: string, at: string): void {
    this.s.setSeen.run(branch, head, at)
  }
}
