import { useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

const short = (sha: string) => sha.slice(0, 7)

/**
 * On a turn's first step: "Undo this turn" (with a confirm) on the latest turn that changed its task's tree, and the
 * label of a turn undone, naming where what the tree held at the undo is kept.
 */
export function TurnUndo({ step, memberId, undoable }: { step: Step; memberId: string; undoable: boolean }) {
  const api = useApp((s) => s.api)
  const state = useApp((s) => s.sessions[memberId]?.info.state)
  const task = useApp((s) => (step.taskId ? s.tasks[step.taskId] : undefined))
  const [confirming, setConfirming] = useState(false)
  const undo = useAction(async () => api.call('sessions.undoTurn', { stepId: step.id }))
  const undone = step.checkpoint?.undone
  if (undone)
    return (
      <div className="turn-undo" data-testid="turn-undone">
        <span className="badge badge-warn">undone</span>{' '}
        <span className="muted small">
          {task ? `${task.key}’s tree` : 'The tree'} went back to {short(undone.commit)}; what it held then is kept at{' '}
          <code title={`commit ${undone.keptCommit} in the task’s tree, and in your repository once the tree is gone`}>
            {undone.keptRef}
          </code>
        </span>
      </div>
    )
  if (!undoable || !step.checkpoint) return null
  const busy = state === 'running' || state === 'waiting_approval'
  return (
    <div className="turn-undo">
      {!confirming ? (
        <button
          className="link-btn small"
          data-testid="undo-turn"
          disabled={busy}
          title={
            busy ? 'Wait for the turn in progress to end' : 'Put the task’s tree back to where it was before this turn'
          }
          onClick={() => setConfirming(true)}
        >
          Undo this turn
        </button>
      ) : (
        <div className="reset-confirm" role="group" aria-label="Undo this turn">
          {task ? `${task.key}’s tree` : 'The task’s tree'} goes back to {short(step.checkpoint.commit)}, as it was
          before this turn, uncommitted changes from then included. What is in it now is kept aside (a ref in the tree),
          and the member is told at its next turn.{' '}
          <button
            className="btn small primary"
            data-testid="undo-turn-confirm"
            disabled={undo.pending || busy}
            onClick={() => void undo.run().then((r) => r && setConfirming(false))}
          >
            Undo turn
          </button>{' '}
          <button className="btn small" onClick={() => setConfirming(false)}>
            Cancel
          </button>
          {undo.error && <span className="error-inline"> {undo.error.message}</span>}
        </div>
      )}
    </div>
  )
}
