import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

export const CONTINUE_TEXT = 'Continue where you left off.'

/**
 * An interrupted turn (Stop, or Concord restarted mid-turn) offers Continue: a message that asks the member to go
 * on, bound to the same task as the interrupted turn. Shown while the member is idle with nothing queued and its
 * newest step is the interruption.
 */
export function ContinueButton({ memberId }: { memberId: string }) {
  const api = useApp((s) => s.api)
  const last = useApp((s) => s.sessions[memberId]?.steps.at(-1))
  const info = useApp((s) => s.sessions[memberId]?.info)
  const go = useAction(async () =>
    api.call('sessions.send', { memberId, text: CONTINUE_TEXT, ...(last?.taskId ? { taskId: last.taskId } : {}) }),
  )
  if (!last || last.kind !== 'interrupted' || !info || info.state !== 'idle' || info.queued > 0) return null
  return (
    <div className="continue-turn small" data-testid="continue-turn">
      <span className="muted">The last turn was interrupted. </span>
      <button
        className="btn small primary"
        onClick={() => void go.run()}
        disabled={go.pending}
        data-testid="continue-button"
        title={`Sends “${CONTINUE_TEXT}”`}
      >
        Continue
      </button>
      {go.error && <span className="error-inline"> {go.error.message}</span>}
    </div>
  )
}
