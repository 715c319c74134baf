/** The notes a task card shows under its lines: its place in the merge queue, its details, a refused move. */
import type { Task } from '../../../../shared/schemas'
import { taskStatusWords } from '../../../../shared/task-rules'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { FirstCommitOffer } from '../workspaces/FirstCommit'
import { useBoardMoves } from './board-moves'

/** A task queued to merge (verified merges): where it is in the queue, what happens now, and Cancel. */
export function MergeQueued({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const unqueue = useAction(async () => applyTask(await api.call('tasks.unqueueMerge', { taskId: task.id })))
  if (!task.mergeQueue || task.merged) return null
  return (
    <div className={`merge-queued small state-${task.mergeQueue.state}`} data-testid="merge-queued">
      <span>
        <b>queued to merge</b>
        {task.mergeQueue.position > 1 ? ` (#${task.mergeQueue.position})` : ''} · {task.mergeQueue.message}
      </span>
      <button
        className="btn small"
        disabled={unqueue.pending}
        onClick={() => void unqueue.run()}
        data-testid="unqueue-merge"
        title={`Take ${task.key} out of the merge queue; it stays as it is`}
      >
        Cancel
      </button>
      <ErrorText error={unqueue.error?.message} />
    </div>
  )
}

/** An open card's spec, acceptance criteria and required reports. */
export function TaskDetail({ task }: { task: Task }) {
  return (
    <div className="tcard-detail">
      {task.spec && <div className="tcard-spec">{task.spec}</div>}
      {task.acceptanceCriteria && (
        <div className="tcard-spec">
          <b>Acceptance:</b> {task.acceptanceCriteria}
        </div>
      )}
      <div className="muted small">Requires: {task.requiredReports.join(', ') || 'no reports'} report(s)</div>
    </div>
  )
}

/** Why the last move of this card was refused, with its reasons; a repository with no commit offers the first. */
export function MoveRefusal({ task }: { task: Task }) {
  const moves = useBoardMoves()
  const refusal = moves.refusals[task.id]
  if (!refusal) return null
  return (
    <div className="move-refusal" role="alert" data-testid="move-refusal">
      {refusal.code === 'no_commit' ? (
        <span>
          <b>Not started:</b> the repository has no commit yet, so {task.key} has nothing to branch from. Make the first
          commit, and {task.key} starts.
          <FirstCommitOffer onDone={() => void moves.perform(task, refusal.to)} />
        </span>
      ) : (
        <span>
          <b>Not moved to “{taskStatusWords[refusal.to]}”:</b> {refusal.message}
        </span>
      )}
      {refusal.reasons.length > 0 && (
        <ul>
          {refusal.reasons.map((r, i) => (
            <li key={i}>{r.message}</li>
          ))}
        </ul>
      )}
      <button className="icon-btn" onClick={() => moves.dismiss(task.id)} aria-label="Dismiss">
        ×
      </button>
    </div>
  )
}
