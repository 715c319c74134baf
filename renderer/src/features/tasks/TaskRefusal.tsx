/** Why a task is not ready to accept or merge, and what resolves it: update its branch, or ask a member. */
import { useState } from 'react'
import type { AcceptanceAction, BranchUpdate, Task } from '../../../../shared/schemas'
import type { RefusalReason } from '../../api/errors'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectMembers } from '../../stores/selectors'
import { useBranchUpdates } from './branch-updates-store'
import type { NextSteps } from './task-next-steps'

/** Why the task is not ready to accept (or merge), each reason with its badge, and what resolves them. */
export function Refusal({
  task,
  next,
  trouble,
  canUpdate,
}: {
  task: Task
  next: NextSteps
  trouble: RefusalReason[]
  canUpdate: boolean
}) {
  const { baseReason, actions } = next
  return (
    <div className="refusal" role="alert" data-testid="refusal">
      <b>{task.status === 'accepted' ? 'Not ready to merge:' : 'Not ready to accept:'}</b>
      <ul>
        {trouble.map((r, i) => (
          <li key={i}>
            <span className={`badge badge-${reasonTone[r.code] ?? 'warn'}`}>
              {r.code === 'evidence_missing' && r.reportId ? 'failed' : (reasonWords[r.code] ?? 'missing')}
            </span>
            <span>{r.message}</span>
          </li>
        ))}
      </ul>
      {baseReason && task.branch && canUpdate && (
        <UpdateBranch task={task} conflicts={baseReason.code === 'merge_conflict'} action={baseReason.action} />
      )}
      {actions.length > 0 && (
        <div className="refusal-actions">
          {actions.map((a) => (
            <AskMember key={a.label} action={a} />
          ))}
        </div>
      )}
    </div>
  )
}

/**
 * The one action that resolves a moved base (issue 30): "Update from <base>" brings it into the task's tree now (the
 * clean case: a conflict goes to the assignee, or is refused with nothing changed), "Ask <assignee> to update" hands
 * it to the assignee's automatic turn in one click. With a conflict, only the assignee can resolve it.
 */
function UpdateBranch({
  task,
  conflicts,
  action,
}: {
  task: Task
  conflicts: boolean
  action: AcceptanceAction | null | undefined
}) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const record = useBranchUpdates((s) => s.record)
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const update = useAction(async (byAssignee: boolean) => {
    const r = await api.call('tasks.updateBranch', { taskId: task.id, ...(byAssignee ? { assignee: true } : {}) })
    record(task.id, { update: r, was: task.artifact?.commit ?? null })
    applyTask(r.task)
  })
  // With verified merges an accepted task's primary action is "Merge when verified" (it updates, verifies and lands).
  const mergesVerified = useApp((s) => (s.workspaceSettings?.merges ?? 'verified') === 'verified')
  const base = task.base?.branch ?? 'main'
  return (
    <div className="refusal-actions" data-testid="update-branch">
      {!conflicts && (
        <button
          className={`btn small${task.status === 'accepted' && mergesVerified ? '' : ' primary'}`}
          disabled={update.pending}
          onClick={() => void update.run(false)}
          data-testid="update-from-base"
          title={`Bring ${base} into ${task.key}'s tree now (in the sandbox, hooks off); it is verified again on the new head`}
        >
          Update from {base}
        </button>
      )}
      {assignee && (
        <button
          className={`btn small${conflicts ? ' primary' : ''}`}
          disabled={update.pending}
          onClick={() => void update.run(true)}
          data-testid="ask-update"
          title={
            conflicts
              ? `${assignee.name} gets a turn in ${task.key}'s tree, left in the merge, to resolve the conflicts and deliver again`
              : `${base} is brought in and ${assignee.name} gets a turn to test the result and deliver again`
          }
        >
          {action?.label ?? `Ask ${assignee.name} to update`}
        </button>
      )}
      <ErrorText error={update.error?.message} />
    </div>
  )
}

export function updateWords(r: BranchUpdate, key: string): string {
  const to = r.head.slice(0, 7)
  if (r.outcome === 'current') return `${key} already has ${r.baseBranch} (${r.baseHead.slice(0, 7)}).`
  if (r.outcome === 'conflict')
    return `${r.baseBranch} conflicts with ${key} in ${r.conflicts.map((c) => c.file).join(', ')}: ${r.turn?.memberName ?? 'its assignee'} was asked to resolve it in its tree.`
  const verify = r.task.status === 'delivered' ? ' It needs verifying again on the new head.' : ''
  const turn = r.turn ? ` ${r.turn.memberName} was asked to test it.` : ''
  return `Updated from ${r.baseBranch}: ${key} is at ${to}.${verify}${turn}`
}

/** A reason's badge: what kind of trouble, in a word or two. */
const reasonWords: Record<string, string> = {
  evidence_stale: 'stale',
  evidence_missing: 'missing',
  base_moved: 'base moved',
  merge_conflict: 'conflict',
}
const reasonTone: Record<string, 'bad' | 'warn'> = { evidence_stale: 'bad', merge_conflict: 'bad' }

/** "Ask Tester to re-verify T-2 on a1b2c3d": opens the prefilled message, editable, and sends it linked to the task. */
function AskMember({ action }: { action: AcceptanceAction }) {
  const api = useApp((s) => s.api)
  const members = useApp(selectMembers)
  const [open, setOpen] = useState(false)
  const [text, setText] = useState(action.text)
  const [memberId, setMemberId] = useState(action.memberId ?? '')
  const [sent, setSent] = useState(false)
  const send = useAction(async () => {
    await api.call('sessions.send', { memberId, text: text.trim(), taskId: action.taskId })
    setSent(true)
    setOpen(false)
  })
  if (sent)
    return (
      <span className="small muted" data-testid="ask-sent">
        Sent to {members.find((m) => m.id === memberId)?.name ?? 'the member'}
      </span>
    )
  if (!open)
    return (
      <button className="btn small" onClick={() => setOpen(true)} data-testid="refusal-action">
        {action.memberId ? action.label : `${action.label} (pick who)`}
      </button>
    )
  return (
    <div className="ask-member" data-testid="ask-member">
      {!action.memberId && (
        <select value={memberId} onChange={(e) => setMemberId(e.target.value)} aria-label="Who to ask">
          <option value="">Pick a member…</option>
          {members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.role})
            </option>
          ))}
        </select>
      )}
      <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} aria-label="Message" />
      <div className="tcard-actions">
        <button
          className="btn small primary"
          disabled={send.pending || !memberId || !text.trim()}
          onClick={() => void send.run()}
          data-testid="ask-send"
        >
          Send to {members.find((m) => m.id === memberId)?.name ?? '…'}
        </button>
        <button className="btn small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <ErrorText error={send.error?.message} />
    </div>
  )
}
