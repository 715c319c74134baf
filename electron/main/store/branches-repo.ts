import type { Db } from './connection'

export interface TaskBranchRow {
  task_id: number
  branch: string
  /** Absolute path of the task's worktree; null once removed (merged or cancelled). */
  worktree: string | null
  base_commit: string
  head: string
  merged_commit: string | null
  merged_at: string | null
  /** The base branch's head the merge was made on (migration 021); null for merges made before it was kept. */
  merged_base: string | null
  created_at: string
  /** 'creating' until the tree is made and the branch is in the user's repository (migration 014). */
  state: 'creating' | 'ready'
  /** JSON {head, at} while a merge of this task runs; left behind by a crash mid-merge. */
  merging: string | null
}

/** The git branch and worktree of each started task in a git workspace. */
export class BranchesRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        'INSERT INTO task_branches (task_id, branch, worktree, base_commit, head, created_at, state) VALUES (@task_id, @branch, @worktree, @base_commit, @head, @created_at, @state)',
      ),
      setState: db.prepare('UPDATE task_branches SET state = ? WHERE task_id = ?'),
      insertBase: db.prepare(
        'INSERT OR IGNORE INTO tree_bases (task_id, base_commit, at) VALUES (@task_id, @base_commit, @at)',
      ),
      setBase: db.prepare('UPDATE task_branches SET base_commit = ? WHERE task_id = ?'),
      bases: db.prepare<[number], { base_commit: string; at: string }>(
        'SELECT base_commit, at FROM tree_bases WHERE task_id = ? ORDER BY at, base_commit',
      ),
      setMerging: db.prepare('UPDATE task_branches SET merging = ? WHERE task_id = ?'),
      get: db.prepare<[number], TaskBranchRow>('SELECT * FROM task_branches WHERE task_id = ?'),
      list: db.prepare<[], TaskBranchRow>('SELECT * FROM task_branches ORDER BY task_id'),
      byBranch: db.prepare<[string], TaskBranchRow>('SELECT * FROM task_branches WHERE branch = ?'),
      setHead: db.prepare('UPDATE task_branches SET head = ? WHERE task_id = ?'),
      setWorktree: db.prepare('UPDATE task_branches SET worktree = ? WHERE task_id = ?'),
      setMerged: db.prepare(
        'UPDATE task_branches SET merged_commit = ?, merged_at = ?, merged_base = ?, worktree = NULL WHERE task_id = ?',
      ),
    }
  }

  insert(
    row: Omit<TaskBranchRow, 'merged_commit' | 'merged_at' | 'merged_base' | 'state' | 'merging'> & {
      state?: TaskBranchRow['state']
    },
  ): void {
    this.s.insert.run({ state: 'ready', ...row })
    this.s.insertBase.run({ task_id: row.task_id, base_commit: row.base_commit, at: row.created_at })
  }

  /** The tree now rests on `base` (an update brought the base branch in): recorded beside the ones before it. */
  setBase(taskId: number, base: string, at: string): void {
    this.s.setBase.run(base, taskId)
    this.s.insertBase.run({ task_id: taskId, base_commit: base, at })
  }

  /** Every base the task's tree rested on, the one it branched from first (schema v19). */
  bases(taskId: number): { base_commit: string; at: string }[] {
    return this.s.bases.all(taskId)
  }

  setState(taskId: number, state: TaskBranchRow['state']): void {
    this.s.setState.run(state, taskId)
  }

  setMerging(taskId: number, merging: string | null): void {
    this.s.setMerging.run(merging, taskId)
  }

  get(taskId: number): TaskBranchRow | undefined {
    return this.s.get.get(taskId)
  }

  list(): TaskBranchRow[] {
    return this.s.list.all()
  }

  byBranch(branch: string): TaskBranchRow | undefined {
    return this.s.byBranch.get(branch)
  }

  setHead(taskId: number, head: string): void {
    this.s.setHead.run(head, taskId)
  }

  setWorktree(taskId: number, worktree: string | null): void {
    this.s.setWorktree.run(worktree, taskId)
  }

  /** `base`: the base branch's head the merge was made on. */
  setMerged(taskId: number, commit: string, at: string, base: string): void {
    this.s.setMerged.run(commit, at, base, taskId)
  }
}
