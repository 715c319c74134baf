import type { Db } from './connection'
import type { MemberRow } from './members-repo'
import type { TaskRow } from './tasks-repo'
import type { WorkspaceRow } from './registry'

/** Archiving and restoring members and tasks of one workspace (lists leave archived rows out; the rows stay). */
export class ArchiveRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      setMember: db.prepare<[string | null, string, number]>(
        'UPDATE members SET archived_at = ?, updated_at = ? WHERE id = ?',
      ),
      setTask: db.prepare<[string | null, string, number]>(
        'UPDATE tasks SET archived_at = ?, version = version + 1, updated_at = ? WHERE id = ?',
      ),
      members: db.prepare<[], MemberRow>(
        'SELECT * FROM members WHERE archived_at IS NOT NULL ORDER BY archived_at DESC, id',
      ),
      tasks: db.prepare<[], TaskRow>('SELECT * FROM tasks WHERE archived_at IS NOT NULL ORDER BY archived_at DESC, id'),
      // What keeps a member from being archived, as the store sees it: messages waiting, steps in flight.
      memberWork: db.prepare<[number], { queued: number; open: number }>(
        `SELECT sum(status = 'queued') AS queued, sum(status IN ('streaming','running','waiting_approval')) AS open
         FROM steps WHERE member_id = ? AND status IN ('queued','streaming','running','waiting_approval')`,
      ),
    }
  }

  /** `at` archives, null restores. */
  setMember(id: number, at: string | null, updatedAt: string): void {
    this.s.setMember.run(at, updatedAt, id)
  }

  setTask(id: number, at: string | null, updatedAt: string): void {
    this.s.setTask.run(at, updatedAt, id)
  }

  archivedMembers(): MemberRow[] {
    return this.s.members.all()
  }

  archivedTasks(): TaskRow[] {
    return this.s.tasks.all()
  }

  memberWork(memberId: number): { queued: number; open: number } {
    const r = this.s.memberWork.get(memberId)
    return { queued: r?.queued ?? 0, open: r?.open ?? 0 }
  }
}

/** Archiving workspaces: the data folder's registry (their files stay where they are). */
export class WorkspaceArchiveRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      set: db.prepare<[string | null, string]>('UPDATE workspaces SET archived_at = ? WHERE id = ?'),
      archived: db.prepare<[], WorkspaceRow>(
        'SELECT * FROM workspaces WHERE archived_at IS NOT NULL ORDER BY archived_at DESC',
      ),
    }
  }

  set(id: string, at: string | null): void {
    this.s.set.run(at, id)
  }

  archived(): WorkspaceRow[] {
    return this.s.archived.all()
  }
}
