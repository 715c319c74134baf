import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { Task } from '../../../../shared/schemas'
import { taskFlagWords, taskMoves, taskStatusWords, workingStatuses } from '../../../../shared/task-rules'
import { Avatar, Badge, ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { RefChip } from '../../components/RefChip'
import { ChangesDialog } from '../diff/LazyChangesDialog'
import { useBoardMoves } from './board-moves'
import { TaskActions } from './TaskActions'
import { ArchiveButton } from '../archive/ArchiveButton'
import { TaskEditor } from './TaskEditor'
import { FirstCommitOffer } from '../workspaces/FirstCommit'
import { TreeRuns } from '../trees/TreeRuns'
import { BaseLine, MergePreviewLine } from './BaseLine'
import { AssigneeTrouble } from './AssigneeTrouble'
import { foldDrawer } from '../../components/narrow-drawer'
import { BranchHead, DeliveredCommit } from './TaskCommits'
import { OpenTree } from '../trees/OpenTree'
import { PullRequestLine } from './PullRequest'
import { PlanReview } from './PlanReview'
import { AttemptsDialog, TryWithDialog } from './Attempts'
import { useAttemptsView } from './attempts-store'

const flagTone = { requirements_updated: 'info', needs_adjustment: 'warn', needs_reverification: 'bad' } as const

/** The working columns left to right: Alt ← / Alt → step along them (blocked and cancelled step back in at "to do"). */
const lanesInOrder = workingStatuses
export const TASK_MIME = 'application/x-concord-task'

function stepped(status: Task['status'], dir: 1 | -1): Task['status'] | null {
  const at = lanesInOrder.indexOf(status)
  if (at < 0) return dir === 1 ? 'todo' : null
  return lanesInOrder[at + dir] ?? null
}

function Delivery({ task }: { task: Task }) {
  const moves = useBoardMoves()
  const [artifact, setArtifact] = useState('')
  return (
    <form
      className="tcard-actions"
      onSubmit={(e) => {
        e.preventDefault()
        void moves.perform(task, 'delivered', artifact)
      }}
    >
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
    </form>
  )
}

/** `lane`: the board column the card is in (the server's list), which may lag behind the row's status for a moment. */
export function TaskCard({ task, lane }: { task: Task; lane: Task['status'] }) {
  const api = useApp((s) => s.api)
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const tasks = useApp((s) => s.tasks)
  const applyTask = useApp((s) => s.applyTask)
  const openTaskSession = useApp((s) => s.openTaskSession)
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  const moves = useBoardMoves()
  const root = useRef<HTMLDivElement>(null)
  const [open, setOpen] = useState(false)
  const [editing, setEditing] = useState(false)
  const [showChanges, setShowChanges] = useState(false)
  const attemptsOpen = useAttemptsView((s) => s.open)
  const showAttempts = useAttemptsView((s) => s.show)
  const closeAttempts = useAttemptsView((s) => s.close)
  const attemptsView = attemptsOpen?.taskId === task.id ? attemptsOpen.mode : null
  // "Try it with…": a task still to do that never started and was not tried (nor is an attempt itself).
  const triable = task.status === 'todo' && !task.branch && !task.attemptOf && !task.attempts
  const [strategy, setStrategy] = useState<'merge' | 'squash' | 'ff-only'>('merge')
  const merge = useAction(async () => applyTask(await api.call('tasks.merge', { taskId: task.id, strategy })))
  const unqueue = useAction(async () => applyTask(await api.call('tasks.unqueueMerge', { taskId: task.id })))
  const mergesMode = useApp((s) => s.workspaceSettings?.merges ?? 'verified')
  // A merged task keeps the version it was merged on: its chips say so ("merged on D-1 v2 · now v3"), not suspect.
  const suspect = task.merged ? [] : task.links.filter((l) => l.state === 'suspect')
  const refusal = moves.refusals[task.id]
  const delivering = moves.delivering === task.id
  // Acceptance has its own button (TaskActions); the menu offers the other moves the table allows.
  const menu = taskMoves[task.status].filter((s) => s !== 'accepted')
  // A conflicting trial merge: Merge could only be refused (its assignee updates it first), so it is not offered. A
  // base moved since the evidence: Merge queues it (verified merges: updated, re-verified, then landed by Concord), or
  // lands what was accepted (as-accepted). A queued task offers Cancel instead.
  const mergeable =
    task.status === 'accepted' &&
    !!task.branch &&
    !task.merged &&
    !task.mergeQueue &&
    !task.readiness.reasons.some((r) => r.code === 'merge_conflict')
  const queuesOnMerge = mergesMode === 'verified' && task.readiness.reasons.some((r) => r.code === 'base_moved')

  // The card is a new element in its new column: give it the focus the keyboard move left behind. Its row changes
  // first (the move's answer) and the column's list once the server is read again: only the card in the new column.
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
      <div className="tcard-badges">
        {task.flag && (
          <Badge tone={flagTone[task.flag]} title="This task's decisions changed after it was aligned">
            {taskFlagWords[task.flag]}
          </Badge>
        )}
        {suspect.map((l) => (
          <Badge key={l.decisionId} tone="warn" title={`${l.decisionKey} changed since this task was aligned with it`}>
            {l.decisionKey} suspect v{l.pinnedVersion}→v{l.currentVersion}
          </Badge>
        ))}
      </div>
      <div className="tcard-meta">
        {assignee ? (
          <span className="tcard-assignee">
            <Avatar id={assignee.id} name={assignee.name} size={16} /> {assignee.name}
          </span>
        ) : (
          <span className="muted">unassigned</span>
        )}
        {task.links.map((l) =>
          task.merged ? (
            <RefChip
              key={l.decisionId}
              refKey={l.decisionKey}
              mergedOn={{ version: l.pinnedVersion, nowVersion: l.state === 'suspect' ? l.currentVersion : null }}
            />
          ) : (
            <RefChip key={l.decisionId} refKey={l.decisionKey} />
          ),
        )}
        {task.blockedBy.length > 0 && (
          <span className="muted small">blocked by {task.blockedBy.map((id) => tasks[id]?.key ?? id).join(', ')}</span>
        )}
        <DeliveredCommit artifact={task.artifact} />
        {!!task.attempts && (
          <button
            className="linklike small"
            onClick={() => showAttempts(task.id, 'compare')}
            data-testid="task-attempts"
            title="The attempts side by side: what each changed, its reports, tokens and time"
          >
            {task.attempts} attempts{task.pickedAttempt ? ' · one picked' : ''}
          </button>
        )}
        {task.attemptOf && (
          <button
            className="linklike small"
            onClick={() => showAttempts(task.id, 'compare')}
            data-testid="attempt-of"
            title="Compare it with the other attempts"
          >
            attempt at {tasks[task.attemptOf]?.key ?? 'another task'}
          </button>
        )}
        {!!task.openComments && (
          <button
            className="linklike small open-comments"
            onClick={() => setShowChanges(true)}
            data-testid="open-comments"
            title="Comments on its diff sent to the assignee that no delivery has addressed yet"
          >
            {task.openComments} open comment{task.openComments === 1 ? '' : 's'}
          </button>
        )}
      </div>
      {task.branch && (
        <div className="tcard-branch small" data-testid="task-branch">
          <span className="branch-name" title="The task's branch; its worktree lives in Concord's data folder">
            ⎇ {task.branch}
          </span>
          <BranchHead head={task.head} />
          {task.merged && (
            <Badge tone="good" title={`merged as ${task.merged.commit}`}>
              merged
            </Badge>
          )}
        </div>
      )}
      <PlanReview task={task} />
      <BaseLine task={task} />
      {mergeable && <MergePreviewLine task={task} />}
      <PullRequestLine task={task} open={open} />
      {task.mergeQueue && !task.merged && (
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
      )}
      {open && !editing && (
        <div className="tcard-detail">
          {task.spec && <div className="tcard-spec">{task.spec}</div>}
          {task.acceptanceCriteria && (
            <div className="tcard-spec">
              <b>Acceptance:</b> {task.acceptanceCriteria}
            </div>
          )}
          <div className="muted small">Requires: {task.requiredReports.join(', ') || 'no reports'} report(s)</div>
        </div>
      )}
      {editing && <TaskEditor task={task} onClose={() => setEditing(false)} />}
      {refusal && (
        <div className="move-refusal" role="alert" data-testid="move-refusal">
          {refusal.code === 'no_commit' ? (
            <span>
              <b>Not started:</b> the repository has no commit yet, so {task.key} has nothing to branch from. Make the
              first commit, and {task.key} starts.
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
      )}
      <AssigneeTrouble task={task} />
      <OpenTree task={task} />
      <TreeRuns task={task} />
      <TaskActions task={task} />
      <ErrorText error={merge.error?.message} />
      {showChanges && (
        <ChangesDialog
          title={`${task.key} · changes on ${task.branch ?? 'its commit'}`}
          load={() => api.call('tasks.diff', { taskId: task.id })}
          taskId={task.id}
          onClose={() => setShowChanges(false)}
        />
      )}
      {attemptsView === 'try' && <TryWithDialog task={task} onClose={closeAttempts} />}
      {attemptsView === 'compare' && <AttemptsDialog task={task} onClose={closeAttempts} />}
      {delivering ? (
        <Delivery task={task} />
      ) : (
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
            <button className="btn small" onClick={() => setShowChanges(true)} data-testid="task-changes">
              Changes
            </button>
          )}
          {mergeable && (
            <>
              <button
                className="btn small primary"
                disabled={merge.pending}
                onClick={() => void merge.run()}
                data-testid="merge-task"
                title={
                  queuesOnMerge
                    ? `Queue ${task.key}: Concord updates its branch, has it verified again, and merges it then (${strategy})`
                    : mergesMode === 'as-accepted'
                      ? `Land the accepted commit in the base branch (${strategy}); as accepted: the merged tree is not re-verified`
                      : `Land the accepted commit in the base branch (${strategy})`
                }
              >
                {queuesOnMerge ? 'Merge when verified' : 'Merge'}
              </button>
              <select
                className="small"
                value={strategy}
                onChange={(e) => setStrategy(e.target.value as typeof strategy)}
                aria-label={`How to merge ${task.key}`}
              >
                <option value="merge">merge commit</option>
                <option value="squash">squash</option>
                <option value="ff-only">fast-forward only</option>
              </select>
            </>
          )}
          {!editing && (
            <button className="btn small" onClick={() => setEditing(true)} data-testid="edit-task">
              Edit
            </button>
          )}
          {menu.length > 0 && (
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
          )}
        </div>
      )}
    </div>
  )
}
