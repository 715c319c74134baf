import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { Task } from '../../../../shared/schemas'
import { taskStatusWords, workingStatuses } from '../../../../shared/task-rules'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { ChangesDialog } from '../diff/LazyChangesDialog'
import { useBoardMoves } from './board-moves'
import { TaskActions } from './TaskActions'
import { TaskEditor } from './TaskEditor'
import { TreeRuns } from '../trees/TreeRuns'
import { BaseLine, MergePreviewLine } from './BaseLine'
import { AssigneeTrouble } from './AssigneeTrouble'
import { OpenTree } from '../trees/OpenTree'
import { PullRequestLine } from './PullRequest'
import { PlanReview } from './PlanReview'
import { AttemptsDialog, TryWithDialog } from './Attempts'
import { useAttemptsView } from './attempts-store'
import { BranchLine, TaskBadges, TaskMeta } from './TaskCardMeta'
import { MergeQueued, MoveRefusal, TaskDetail } from './TaskCardNotes'
import { CardButtons, Delivery, type MergeStrategy } from './TaskCardButtons'

/** The working columns left to right: Alt ← / Alt → step along them (blocked and cancelled step back in at "to do"). */
const lanesInOrder = workingStatuses
export const TASK_MIME = 'application/x-concord-task'

function stepped(status: Task['status'], dir: 1 | -1): Task['status'] | null {
  const at = lanesInOrder.indexOf(status)
  if (at < 0) return dir === 1 ? 'todo' : null
  return lanesInOrder[at + dir] ?? null
}

/**
 * Merge from the card: offered for an accepted task with a branch, not merged, not queued. A conflicting trial merge:
 * Merge could only be refused (its assignee updates it first), so it is not offered. A base moved since the evidence:
 * Merge queues it (verified merges: updated, re-verified, then landed by Concord), or lands what was accepted
 * (as-accepted). A queued task offers Cancel instead.
 */
function useCardMerge(task: Task) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [strategy, setStrategy] = useState<MergeStrategy>('merge')
  const merge = useAction(async () => applyTask(await api.call('tasks.merge', { taskId: task.id, strategy })))
  const mode = useApp((s) => s.workspaceSettings?.merges ?? 'verified')
  const mergeable =
    task.status === 'accepted' &&
    !!task.branch &&
    !task.merged &&
    !task.mergeQueue &&
    !task.readiness.reasons.some((r) => r.code === 'merge_conflict')
  const queuesOnMerge = mode === 'verified' && task.readiness.reasons.some((r) => r.code === 'base_moved')
  const run = () => void merge.run()
  return { run, pending: merge.pending, error: merge.error, strategy, setStrategy, mergeable, queuesOnMerge, mode }
}

/**
 * The card is a new element in its new column: give it the focus the keyboard move left behind. Its row changes
 * first (the move's answer) and the column's list once the server is read again: only the card in the new column.
 * Alt ← / Alt → on the card move it a column.
 */
function useCardKeys(task: Task, lane: Task['status']) {
  const moves = useBoardMoves()
  const root = useRef<HTMLDivElement>(null)
  const { focusAfter, setFocusAfter } = moves
  useEffect(() => {
    if (focusAfter?.taskId !== task.id || focusAfter.status !== lane || !root.current) return
    root.current.focus()
    setFocusAfter(null)
  }, [focusAfter, task.id, lane, setFocusAfter])
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target !== e.currentTarget || !e.altKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return
    e.preventDefault()
    e.stopPropagation()
    const to = stepped(task.status, e.key === 'ArrowRight' ? 1 : -1)
    if (!to) return
    moves.setFocusAfter({ taskId: task.id, status: to })
    moves.request(task, to)
  }
  return { root, onKeyDown }
}

/** `lane`: the board column the card is in (the server's list), which may lag behind the row's status for a moment. */
export function TaskCard({ task, lane }: { task: Task; lane: Task['status'] }) {
  const moves = useBoardMoves()
  const { root, onKeyDown } = useCardKeys(task, lane)
  const [open, setOpen] = useState(false)
  const [editing, setEditing] = useState(false)
  const [showChanges, setShowChanges] = useState(false)
  const merge = useCardMerge(task)
  const delivering = moves.delivering === task.id
  return (
    <div
      ref={root}
      className={`tcard${task.flag ? ` flag-${task.flag}` : ''}${moves.dragging?.id === task.id ? ' dragging' : ''}`}
      data-testid="task-card"
      data-key={task.key}
      data-status={task.status}
      data-flag={task.flag ?? ''}
      tabIndex={0}
      aria-label={`${task.key} ${task.title}, ${taskStatusWords[task.status]}. Alt left or right arrow moves it.`}
      draggable={!editing && !delivering}
      onDragStart={(e) => {
        e.dataTransfer.setData(TASK_MIME, task.id)
        e.dataTransfer.setData('text/plain', task.key)
        e.dataTransfer.effectAllowed = 'move'
        moves.setDragging(task)
      }}
      onDragEnd={() => moves.setDragging(null)}
      onKeyDown={onKeyDown}
    >
      <div className="tcard-head">
        <span className="dkey">{task.key}</span>
        <button className="tcard-title link-btn" onClick={() => setOpen(!open)} aria-expanded={open}>
          {task.title}
        </button>
      </div>
      <TaskBadges task={task} />
      <TaskMeta task={task} onShowChanges={() => setShowChanges(true)} />
      <BranchLine task={task} />
      <PlanReview task={task} />
      <BaseLine task={task} />
      {merge.mergeable && <MergePreviewLine task={task} />}
      <PullRequestLine task={task} open={open} />
      <MergeQueued task={task} />
      {open && !editing && <TaskDetail task={task} />}
      {editing && <TaskEditor task={task} onClose={() => setEditing(false)} />}
      <MoveRefusal task={task} />
      <AssigneeTrouble task={task} />
      <OpenTree task={task} />
      <TreeRuns task={task} />
      <TaskActions task={task} />
      <ErrorText error={merge.error?.message} />
      <CardDialogs task={task} showChanges={showChanges} onCloseChanges={() => setShowChanges(false)} />
      {delivering ? (
        <Delivery task={task} />
      ) : (
        <CardButtons
          task={task}
          merge={merge}
          editing={editing}
          onEdit={() => setEditing(true)}
          onShowChanges={() => setShowChanges(true)}
        />
      )}
    </div>
  )
}

/** The dialogs a card opens: its changes, and trying it with several members or comparing its attempts. */
function CardDialogs({
  task,
  showChanges,
  onCloseChanges,
}: {
  task: Task
  showChanges: boolean
  onCloseChanges(): void
}) {
  const api = useApp((s) => s.api)
  const attemptsOpen = useAttemptsView((s) => s.open)
  const closeAttempts = useAttemptsView((s) => s.close)
  const attemptsView = attemptsOpen?.taskId === task.id ? attemptsOpen.mode : null
  return (
    <>
      {showChanges && (
        <ChangesDialog
          title={`${task.key} · changes on ${task.branch ?? 'its commit'}`}
          load={() => api.call('tasks.diff', { taskId: task.id })}
          taskId={task.id}
          onClose={onCloseChanges}
        />
      )}
      {attemptsView === 'try' && <TryWithDialog task={task} onClose={closeAttempts} />}
      {attemptsView === 'compare' && <AttemptsDialog task={task} onClose={closeAttempts} />}
    </>
  )
}
