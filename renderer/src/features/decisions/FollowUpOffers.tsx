import { useState } from 'react'
import type { Impact } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/**
 * The follow-up tasks an edit offered for merged tasks (workspace setting: offer, not create), each a button that
 * creates it (tasks.followUp); once created, its key in place of the button.
 */
export function FollowUpOffers({ impact }: { impact: Impact }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [created, setCreated] = useState<Record<string, string>>({})
  const create = useAction(async (taskId: string) => {
    const task = await api.call('tasks.followUp', { taskId, decisionId: impact.decisionId })
    applyTask(task)
    setCreated((c) => ({ ...c, [taskId]: task.key }))
  })
  const offered = (impact.mergedTasks ?? []).filter((m) => m.followUp === 'offer')
  if (!offered.length) return null
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
      <ErrorText error={create.error?.message} />
    </div>
  )
}
