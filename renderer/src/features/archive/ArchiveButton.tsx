import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import './archive.css'

type Target = { kind: 'member'; id: string } | { kind: 'task'; id: string } | { kind: 'workspace'; id: string }

/**
 * Archive: hides a member, task or workspace (kept in the store and the export; Restore in Archived).
 * The core refuses a member that is working (member_busy): its message says what to wait for.
 */
export function ArchiveButton({ target, label = 'Archive', className = 'btn small', onDone }: { target: Target; label?: string; className?: string; onDone?(): void }) {
  const api = useApp((s) => s.api)
  const loadWorkspaces = useApp((s) => s.loadWorkspaces)
  const selectWorkspace = useApp((s) => s.selectWorkspace)
  const current = useApp((s) => s.workspaceId)
  const archive = useAction(async () => {
    if (target.kind === 'member') await api.call('members.archive', { memberId: target.id })
    else if (target.kind === 'task') await api.call('tasks.archive', { taskId: target.id })
    else {
      await api.call('workspaces.archive', { workspaceId: target.id })
      await loadWorkspaces()
      if (current === target.id) await selectWorkspace(null)
    }
    onDone?.()
    return true
  })
  return (
    <span className="archive-action">
      <button
        className={className}
        disabled={archive.pending}
        onClick={(e) => {
          e.stopPropagation()
          void archive.run()
        }}
        data-testid={`archive-${target.kind}`}
        title={`Hide this ${target.kind}; it stays in the store and the export, and Archived can restore it`}
      >
        {label}
      </button>
      {archive.error && (
        <span className="error-inline archive-error" role="alert">
          {archive.error.message}
        </span>
      )}
    </span>
  )
}
