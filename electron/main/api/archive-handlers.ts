import {
  archivedItems,
  archivedWorkspaces,
  archiveMember,
  archiveTask,
  archiveWorkspace,
  restoreMember,
  restoreTask,
  restoreWorkspace,
  type MemberActivity,
} from '../harness/workspace/archive'
import type { Harness } from '../harness/harness'
import { searchSessions } from '../harness/members/search'
import { searchRecords } from '../harness/workspace/record-search'
import type { Handlers } from './handlers'

type ArchiveMethods =
  | 'members.archive'
  | 'members.restore'
  | 'tasks.archive'
  | 'tasks.restore'
  | 'workspaces.archive'
  | 'workspaces.restore'
  | 'workspaces.archived'
  | 'archive.list'
  | 'sessions.search'
  | 'search.records'

/** Archive and restore, and search across sessions (issue 13) and records (issue 31). `activity` is the runtime's view of who is working. */
export function archiveHandlers(h: Harness, activity: MemberActivity): Pick<Handlers, ArchiveMethods> {
  return {
    'members.archive': (p) => archiveMember(h, p, activity),
    'members.restore': (p) => restoreMember(h, p),
    'tasks.archive': (p) => archiveTask(h, p),
    'tasks.restore': (p) => restoreTask(h, p),
    'workspaces.archive': (p) => archiveWorkspace(h, p.workspaceId, activity),
    'workspaces.restore': (p) => restoreWorkspace(h, p.workspaceId),
    'workspaces.archived': () => archivedWorkspaces(h),
    'archive.list': (p) => archivedItems(h, p.workspaceId),
    'sessions.search': (p) => searchSessions(h.ctx(p.workspaceId), p.query, p.limit),
    'search.records': (p) => searchRecords(h.ctx(p.workspaceId), p.query, p.limit),
  }
}
