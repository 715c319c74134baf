/** The row of buttons at the foot of a task card, or the delivery form in its place. */
import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { taskMoves, taskStatusWords } from '../../../../shared/task-rules'
import { foldDrawer } from '../../components/narrow-drawer'
import { SubmitForm } from '../../components/SubmitForm'
import { useApp } from '../../stores/app-store'
import { ArchiveButton } from '../archive/ArchiveButton'
import { useAttemptsView } from './attempts-store'
import { useBoardMoves } from './board-moves'

export type MergeStrategy = 'merge' | 'squash' | 'ff-only'

/** What the card's Merge button needs: the action, its strategy, and whether it queues (verified merges). */
export interface CardMerge {
  run(): void
  pending: boolean
  strategy: MergeStrategy
  setStrategy(s: MergeStrategy): void
  mergeable: boolean
  queuesOnMerge: boolean
  mode: 'verified' | 'as-accepted'
}

/** The delivered artifact (a commit, a branch, a digest) asked for when a card moves to delivered. */
export function Delivery({ task }: { task: Task }) {
  const moves = useBoardMoves()
  const [artifact, setArtifact] = useState('')
  return (
    <SubmitForm className="tcard-actions" onSubmit={() => void moves.perform(task, 'delivered', artifact)}>
      <input
        className="grow"
        value={artifact}
        onChange={(e) => setArtifact(e.target.value)}
        placeholder={task.branch ? 'empty: the branch head; or a commit' : 'commit, branch or digest delivered'}
        aria-label="Delivered artifact"
        autoFocus
      />
      <button className="btn small primary" disabled={moves.pending === task.id}>
        Deliver
      </button>
      <button type="button" className="btn small" onClick={() => moves.setDelivering(null)}>
        Cancel
      </button>
    </SubmitForm>
  )
}

/** Archive, Session, Try it with…, Changes, Merge, Edit and Move to…, each when it applies. */
export function CardButtons(p: {
  task: Task
  merge: CardMerge
  editing: boolean
  onEdit(): void
  onShowChanges(): void
}) {
  const { task } = p
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const openTaskSession = useApp((s) => s.openTaskSession)
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  const showAttempts = useAttemptsView((s) => s.show)
  // "Try it with…": a task still to do that never started and was not tried (nor is an attempt itself).
  const triable = task.status === 'todo' && !task.branch && !task.attemptOf && !task.attempts
  return (
    <div className="tcard-actions">
      <ArchiveButton target={{ kind: 'task', id: task.id }} className="btn small ghost" />
      {assignee && (
        <button
          className="btn small"
          onClick={() => {
            openTaskSession(assignee.id, task.id)
            foldDrawer(setPanelOpen)
          }}
          data-testid="task-session"
          title={`${assignee.name}’s turns on ${task.key} only`}
        >
          Session
        </button>
      )}
      {triable && (
        <button
          className="btn small"
          onClick={() => showAttempts(task.id, 'try')}
          data-testid="try-with"
          title={`Run ${task.key} on 2–4 members at once, each in its own branch and tree, and pick the best`}
        >
          Try it with…
        </button>
      )}
      {(task.branch || task.artifact?.commit) && (
        <button className="btn small" onClick={p.onShowChanges} data-testid="task-changes">
          Changes
        </button>
      )}
      {p.merge.mergeable && <MergeButton task={task} merge={p.merge} />}
      {!p.editing && (
        <button className="btn small" onClick={p.onEdit} data-testid="edit-task">
          Edit
        </button>
      )}
      <MoveMenu task={task} />
    </div>
  )
}

/** Merge (or "Merge when verified": it queues) and how: a merge commit, squash, fast-forward only. */
function MergeButton({ task, merge }: { task: Task; merge: CardMerge }) {
  const { strategy } = merge
  return (
    <>
      <button
        className="btn small primary"
        disabled={merge.pending}
        onClick={merge.run}
        data-testid="merge-task"
        title={
          merge.queuesOnMerge
            ? `Queue ${task.key}: Concord updates its branch, has it verified again, and merges it then (${strategy})`
            : merge.mode === 'as-accepted'
              ? `Land the accepted commit in the base branch (${strategy}); as accepted: the merged tree is not re-verified`
              : `Land the accepted commit in the base branch (${strategy})`
        }
      >
        {merge.queuesOnMerge ? 'Merge when verified' : 'Merge'}
      </button>
      <select
        className="small"
        value={strategy}
        onChange={(e) => merge.setStrategy(e.target.value as MergeStrategy)}
        aria-label={`How to merge ${task.key}`}
      >
        <option value="merge">merge commit</option>
        <option value="squash">squash</option>
        <option value="ff-only">fast-forward only</option>
      </select>
    </>
  )
}

/** "Move to…": the other moves the table allows (acceptance has its own button, in TaskActions). */
function MoveMenu({ task }: { task: Task }) {
  const moves = useBoardMoves()
  const menu = taskMoves[task.status].filter((s) => s !== 'accepted')
  if (menu.length === 0) return null
  return (
    <select
      className="small tcard-move"
      value=""
      disabled={moves.pending === task.id}
      onChange={(e) => {
        if (e.target.value) moves.request(task, e.target.value as Task['status'])
      }}
      aria-label={`Move ${task.key}`}
      title="Or drag the card, or focus it and press Alt ← / Alt →"
    >
      <option value="">Move to…</option>
      {menu.map((s) => (
        <option key={s} value={s}>
          {taskStatusWords[s]}
        </option>
      ))}
    </select>
  )
}
