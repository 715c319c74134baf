import { useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { useApp } from '../../stores/app-store'
import { ChangesDialog } from '../diff/LazyChangesDialog'

/** Under a turn's last step: the files the turn changed, opening the turn's own diff. */
export function TurnChanges({ step }: { step: Step }) {
  const api = useApp((s) => s.api)
  const [open, setOpen] = useState(false)
  const files = step.changes
  if (!files?.length) return null
  const names = files
    .slice(0, 3)
    .map((f) => f.path.split('/').pop())
    .join(', ')
  return (
    <div className="turn-changes">
      <button
        className="link-btn small"
        onClick={() => setOpen(true)}
        data-testid="turn-changes"
        title={files.map((f) => `${f.status} ${f.path}`).join('\n')}
      >
        {files.length} file{files.length === 1 ? '' : 's'} changed
      </button>
      <span className="muted small">
        {' '}
        · {names}
        {files.length > 3 ? ', …' : ''}
      </span>
      {open && (
        <ChangesDialog
          title="What this turn changed"
          load={() => api.call('sessions.changes', { stepId: step.id })}
          onClose={() => setOpen(false)}
        />
      )}
    </div>
  )
}
