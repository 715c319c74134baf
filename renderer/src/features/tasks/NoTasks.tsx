import { useEffect, useState } from 'react'
import { EmptyState } from '../../components/ui'
import { whileMounted } from '../../lib/while-mounted'
import { useApp } from '../../stores/app-store'
import { ArchivedLink } from '../archive/ArchivedView'
import './no-tasks.css'

/** The board with no task to show: a new workspace, or one whose tasks are all archived (then it says so). */
export function NoTasks() {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)
  const [archived, setArchived] = useState<{ workspaceId: string; tasks: number } | null>(null)
  useEffect(() => {
    if (workspaceId)
      return whileMounted(api.call('archive.list', { workspaceId }), (items) =>
        setArchived({ workspaceId, tasks: items.tasks.length }),
      )
  }, [api, workspaceId])
  const kept = archived?.workspaceId === workspaceId ? archived.tasks : 0
  if (kept > 0) {
    return (
      <EmptyState title="Every task is archived">
        <span data-testid="all-archived">
          {kept === 1 ? 'One archived task is kept with its' : `${kept} archived tasks are kept with their`} reports and
          history. Restore from the archive, or add a new task.
        </span>
        <span className="no-tasks-archived">
          <ArchivedLink testId="board-archived-open" />
        </span>
      </EmptyState>
    )
  }
  return (
    <EmptyState title="No tasks yet">
      Tasks turn decisions into checkable work. Ask your lead to break the goal into tasks linked to the decisions they
      depend on, or add one here.
    </EmptyState>
  )
}
