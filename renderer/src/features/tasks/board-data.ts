import type { Task } from '../../../../shared/schemas'
import { useTaskList, type TaskList } from '../../stores/task-lists'
import type { BoardFilter } from '../../stores/open-filtered'

/** What the board's filters narrow it to; served by tasks.page (server-side), one list per column. */
export type { BoardFilter }

/** One column's tasks: a paged list of one status under the board's filters. */
export function useColumnTasks(status: Task['status'], filter: BoardFilter): TaskList {
  return useTaskList({ status: [status], ...filter })
}

/** True when the workspace has any task at all (the empty state, whatever the filters). */
export function useHasTasks(): { hasTasks: boolean; loading: boolean } {
  const all = useTaskList({})
  return { hasTasks: all.total > 0 || all.tasks.length > 0, loading: all.loading }
}
