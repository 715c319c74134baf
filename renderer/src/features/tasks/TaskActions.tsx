import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { refusalReasons, type RefusalReason } from '../../api/errors'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/** The task's acceptance actions: Accept (with why it was refused) and Acknowledge for a flagged task. */
export function TaskActions({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [reasons, setReasons] = useState<RefusalReason[] | null>(null)

  const accept = useAction(async () => {
    setReasons(null)
    try {
      applyTask(await api.call('tasks.accept', { taskId: task.id }))
    } catch (err) {
      const r = refusalReasons(err as never)
      if (r.length) setReasons(r)
      throw err
    }
  })
  const ack = useAction(async () => applyTask(await api.call('tasks.acknowledge', { taskId: task.id })))

  return (
    <>
      {reasons && (
        <div className="refusal" role="alert" data-testid="refusal">
          <b>Not accepted:</b>
          <ul>
            {reasons.map((r, i) => (
              <li key={i}>
                <span className={`badge badge-${r.code === 'evidence_stale' ? 'bad' : 'warn'}`}>{r.code === 'evidence_stale' ? 'stale' : 'missing'}</span>
                <span>{r.message}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!reasons && accept.error && <ErrorText error={accept.error.message} />}
      <ErrorText error={ack.error?.message} />
      {(task.status === 'delivered' || task.flag) && (
        <div className="tcard-actions">
          {task.status === 'delivered' && (
            <button className="btn small primary" disabled={accept.pending} onClick={() => void accept.run()} data-testid="accept-task">
              Accept
            </button>
          )}
          {task.flag && (
            <button className="btn small" disabled={ack.pending} onClick={() => void ack.run()} title="Re-pin its decisions to the current versions">
              Acknowledge
            </button>
          )}
        </div>
      )}
    </>
  )
}
