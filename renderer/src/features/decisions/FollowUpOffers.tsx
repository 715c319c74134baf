import { useState } from 'react'
import type { Impact } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/**
 * What an edit offers for merged tasks, as buttons: the follow-up task of a merged task left behind (workspace
 * setting: offer, not create; tasks.followUp creates it), and the cancellation of a follow-up the edit made
 * obsolete (the decision is back to what its merged task was merged on) that the edit did not cancel itself
 * (tasks.setStatus cancels it, removing its tree). Once done, what was done in place of the button.
 */
export function FollowUpOffers({ impact }: { impact: Impact }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [created, setCreated] = useState<Record<string, string>>({})
  const [cancelled, setCancelled] = useState<Record<string, true>>({})
  const create = useAction(async (taskId: string) => {
    const task = await api.call('tasks.followUp', { taskId, decisionId: impact.decisionId })
    applyTask(task)
    setCreated((c) => ({ ...c, [taskId]: task.key }))
  })
  const cancel = useAction(async (taskId: string) => {
    applyTask(await api.call('tasks.setStatus', { taskId, status: 'cancelled' }))
    setCancelled((c) => ({ ...c, [taskId]: true }))
  })
  const offered = (impact.mergedTasks ?? []).filter((m) => m.followUp === 'offer')
  const obsolete = (impact.obsoleteFollowUps ?? []).filter((o) => !o.cancelled)
  if (!offered.length && !obsolete.length) return null
  return (
    <div className="followup-offers" data-testid="followup-offers">
      {offered.map((m) =>
        created[m.taskId] ? (
          <span key={m.taskId} className="muted small" data-testid="followup-created">
            {created[m.taskId]} created: follow-up of {m.key}
          </span>
        ) : (
          <button
            key={m.taskId}
            className="btn small"
            disabled={create.pending}
            onClick={() => void create.run(m.taskId)}
            data-testid="followup-create"
          >
            Create the follow-up task for {m.key}
          </button>
        ),
      )}
      {obsolete.map((o) =>
        cancelled[o.taskId] ? (
          <span key={o.taskId} className="muted small" data-testid="followup-cancelled">
            {o.key} cancelled: {o.mergedKey} already implements this version
          </span>
        ) : (
          <button
            key={o.taskId}
            className="btn small"
            disabled={cancel.pending}
            onClick={() => void cancel.run(o.taskId)}
            title={o.text}
            data-testid="followup-cancel"
          >
            Cancel {o.key}, the obsolete follow-up of {o.mergedKey}
          </button>
        ),
      )}
      <ErrorText error={create.error?.message ?? cancel.error?.message} />
    </div>
  )
}
