/** What a task card says about its task under the title: flags, its people and decisions, its branch. */
import type { Task } from '../../../../shared/schemas'
import { taskFlagWords } from '../../../../shared/task-rules'
import { RefChip } from '../../components/RefChip'
import { Avatar, Badge } from '../../components/ui'
import { costText, costTitle } from '../../lib/money'
import { useApp } from '../../stores/app-store'
import { useAttemptsView } from './attempts-store'
import { BranchHead, DeliveredCommit } from './TaskCommits'

const flagTone = { requirements_updated: 'info', needs_adjustment: 'warn', needs_reverification: 'bad' } as const

/** The task's flag and the decisions that changed since it was aligned with them. */
export function TaskBadges({ task }: { task: Task }) {
  // A merged task keeps the version it was merged on: its chips say so ("merged on D-1 v2 · now v3"), not suspect.
  const suspect = task.merged ? [] : task.links.filter((l) => l.state === 'suspect')
  return (
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
  )
}

/** Its assignee, decisions, blockers, delivered commit, and links to its attempts and open comments. */
export function TaskMeta({ task, onShowChanges }: { task: Task; onShowChanges(): void }) {
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const tasks = useApp((s) => s.tasks)
  return (
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
      <AttemptLinks task={task} />
      <TaskCost taskId={task.id} />
      {!!task.openComments && (
        <button
          className="linklike small open-comments"
          onClick={onShowChanges}
          data-testid="open-comments"
          title="Comments on its diff sent to the assignee that no delivery has addressed yet"
        >
          {task.openComments} open comment{task.openComments === 1 ? '' : 's'}
        </button>
      )}
    </div>
  )
}

/** What the task's turns cost so far (reported by agents or priced), once it has turns. */
function TaskCost({ taskId }: { taskId: string }) {
  const cost = useApp((s) => s.metrics?.cost.perTask.find((c) => c.taskId === taskId)?.cost)
  if (!cost) return null
  return (
    <span className="muted small" data-testid="task-cost" title={costTitle(cost) ?? 'What its turns cost so far'}>
      cost {costText(cost)}
    </span>
  )
}

/** "3 attempts" on a task tried with several members; "attempt at T-4" on one of those attempts. */
function AttemptLinks({ task }: { task: Task }) {
  const showAttempts = useAttemptsView((s) => s.show)
  const tried = useApp((s) => (task.attemptOf ? s.tasks[task.attemptOf] : undefined))
  return (
    <>
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
          attempt at {tried?.key ?? 'another task'}
        </button>
      )}
    </>
  )
}

/** The task's branch, its head, and whether it was merged. */
export function BranchLine({ task }: { task: Task }) {
  if (!task.branch) return null
  return (
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
  )
}
