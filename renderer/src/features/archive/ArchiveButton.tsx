import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { offerUndo } from './undo'
import './archive.css'

type Target = { kind: 'member'; id: string } | { kind: 'task'; id: string } | { kind: 'workspace'; id: string }

/**
 * Archive: hides a member, task or workspace (kept in the store and the export; Restore in Archived, and
 * Undo at the bottom of the window for a few seconds).
 * The core refuses a member that is working (member_busy): its message says what to wait for.
 */
export function ArchiveButton({
  target,
  label = 'Archive',
  className = 'btn small',
  onDone,
}: {
  target: Target
  label?: string
  className?: string
  onDone?(): void
}) {
  const api = useApp((s) => s.api)
  const loadWorkspaces = useApp((s) => s.loadWorkspaces)
  const selectWorkspace = useApp((s) => s.selectWorkspace)
  const current = useApp((s) => s.workspaceId)
  const archive = useAction(async () => {
    if (target.kind === 'member') {
      const m = await api.call('members.archive', { memberId: target.id })
      offerUndo(m.name, () => api.call('members.restore', { memberId: target.id }))
    } else if (target.kind === 'task') {
      const t = await api.call('tasks.archive', { taskId: target.id })
      offerUndo(`${t.key} ${t.title}`, () => api.call('tasks.restore', { taskId: target.id }))
    } else {
      const w = await api.call('workspaces.archive', { workspaceId: target.id })
      await loadWorkspaces()
      if (current === target.id) await selectWorkspace(null)
      offerUndo(w.name, async () => {
        await api.call('workspaces.restore', { workspaceId: target.id })
        await loadWorkspaces()
      })
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
