import { useEffect, useState } from 'react'
import type { AcceptanceAction, BranchUpdate, Notice, Task } from '../../../../shared/schemas'
import { refusalReasons, type RefusalReason } from '../../api/errors'
import { Badge, ErrorText } from '../../components/ui'
import { stillShown, useBranchUpdates } from './branch-updates-store'
import { shortTime } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectMembers } from '../../stores/selectors'
import './task-actions.css'

/**
 * The task's next steps, all from the core's answer the task carries (Task.readiness, its accept check run dry, new
 * with every task.changed): "Ready to accept", or why not with the message that resolves each reason; "Deliver on
 * <commit>" after a passing implementation report that is still current; and for a flagged task Acknowledge plus
 * "Tell <assignee>" (or when the notice reached it). A refused Accept shows the refusal's reasons until the task
 * comes anew: one answer at a time, never one older than the task shown.
 */
export function TaskActions({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  // Notices are re-read when the task or the assignee's pending notices change.
  const pendingNotices = useApp((s) => (task.assigneeId ? s.sessions[task.assigneeId]?.info.pendingNotices : undefined))
  const [refusal, setRefusal] = useState<{ of: Task; reasons: RefusalReason[] } | null>(null)
  const [notice, setNotice] = useState<Notice | null>(null)

  useEffect(() => {
    let live = true
    if (task.flag && task.assigneeId && task.flag !== 'requirements_updated') {
      api.call('notices.list', { memberId: task.assigneeId }).then(
        (all) => live && setNotice(all.filter((n) => n.taskIds.includes(task.id)).at(-1) ?? null),
        () => live && setNotice(null),
      )
    }
    return () => {
      live = false
    }
  }, [api, task.id, task.flag, task.assigneeId, task.updatedAt, pendingNotices])

  // `andMerge`: the one click a ready task with a branch offers, accepting it and then merging it (or queueing it).
  const accept = useAction(async (andMerge?: boolean) => {
    try {
      applyTask(await api.call('tasks.accept', { taskId: task.id }))
      if (andMerge) applyTask(await api.call('tasks.merge', { taskId: task.id, strategy: 'merge' }))
    } catch (err) {
      // The refusal is the same check as the readiness shown, made later: its reasons replace the card's until the task comes anew.
      const reasons = refusalReasons(err as never)
      if (reasons.length) {
        setRefusal({ of: task, reasons })
        return
      }
      throw err
    }
  })
  const ack = useAction(async () => applyTask(await api.call('tasks.acknowledge', { taskId: task.id })))
  const deliver = useAction(async (commit: string) =>
    applyTask(await api.call('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit } })),
  )
  const tell = useAction(async (n: Notice) => {
    await api.call('sessions.send', { memberId: n.memberId, text: n.text, taskId: task.id })
  })

  // What the last "Update from <base>" did, shown while the task is at the head it made (the reasons that offered it
  // are gone by then).
  const updated = useBranchUpdates((s) => s.byTask[task.id])
  // A conflict handed to the assignee is theirs until they deliver again: no second ask.
  const handedOver = stillShown(updated, task.artifact?.commit)
  const { readiness } = task
  const refused = refusal?.of === task ? refusal.reasons : null
  const ready = task.status === 'delivered' && !refused && readiness.ready
  const offer = task.status === 'in_progress' ? readiness.deliverOn : null
  // Delivered: why it cannot be accepted. Accepted: why it cannot be merged now (the base moved, or it conflicts).
  const reasons: RefusalReason[] | null =
    task.status === 'accepted' && !task.merged
      ? readiness.reasons.length
        ? readiness.reasons
        : null
      : task.status !== 'delivered'
        ? null
        : (refused ?? (readiness.reasons.length ? readiness.reasons : null))
  // Checks a delivery asked for (autoChecks): the named tester and reviewer are on it, nothing for the user to do yet.
  const autoChecks = useApp((s) => s.workspaceSettings?.autoChecks ?? false)
  const byId = useApp((s) => s.members)
  // Only a member with a model or an agent is asked (the core's canWork): the others stay for the user to ask.
  const asked = (r: RefusalReason) =>
    autoChecks &&
    !!byId[r.action?.memberId ?? '']?.provider &&
    task.status === 'delivered' &&
    r.code === 'evidence_missing' &&
    !r.reportId &&
    !!r.action?.memberId &&
    r.action.memberId !== task.assigneeId
  const waiting = refused ? [] : (reasons ?? []).filter(asked)
  const shown = reasons?.filter((r) => !waiting.includes(r)) ?? null
  const trouble = shown?.length ? shown : null
  // A queued merge the queue is working on asks the members itself (update, re-verify): no second ask from the card.
  // Blocked, it waits for the user, who gets the asks back.
  const queueWorks = !!task.mergeQueue && task.mergeQueue.state !== 'blocked'
  // A moved base or a conflict is resolved by updating the branch (UpdateBranch), not by a message.
  const baseReason = queueWorks
    ? undefined
    : (reasons?.find((r) => r.code === 'merge_conflict') ?? reasons?.find((r) => r.code === 'base_moved'))
  // One button per distinct action: several reasons about one report share it.
  const actions =
    trouble && !queueWorks
      ? [
          ...new Map(
            trouble
              .filter((r) => r.action && r !== baseReason && r.code !== baseReason?.code)
              .map((r) => [r.action!.label, r.action!]),
          ).values(),
        ]
      : []

  return (
    <>
      {ready && (
        <div className="task-ready" data-testid="ready-to-accept">
          <Badge
            tone="good"
            title="Every required report is in, passing and based on the current decisions and the delivered commit"
          >
            Ready to accept
          </Badge>
        </div>
      )}
      {waiting.length > 0 && (
        <p className="task-waiting small muted" role="status" data-testid="checks-waiting">
          Waiting for {waitingWords(waiting)}
        </p>
      )}
      {trouble && (
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
          {baseReason && task.branch && !(handedOver && updated?.update.outcome === 'conflict') && (
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
      )}
      {updated && handedOver && (
        <p className="small muted" role="status" data-testid="update-result">
          {updateWords(updated.update, task.key)}
        </p>
      )}
      <ErrorText error={accept.error?.message ?? ack.error?.message ?? deliver.error?.message ?? tell.error?.message} />
      {notice && assignee && task.flag && (
        <div className="task-notice small" data-testid="task-notice">
          {notice.deliveredAt ? (
            <span className="muted" data-testid="notice-delivered">
              Notice delivered to {assignee.name} at {shortTime(notice.deliveredAt)}
            </span>
          ) : (
            <span className="muted">{assignee.name} has not read the notice yet</span>
          )}
        </div>
      )}
      {(task.status === 'delivered' || task.flag || offer) && (
        <div className="tcard-actions">
          {offer && (
            <button
              className="btn small primary"
              disabled={deliver.pending}
              onClick={() => void deliver.run(offer.commit)}
              data-testid="deliver-on"
              title={`${offer.reportKey} by the assignee passed on this commit`}
            >
              Deliver on {offer.commit.slice(0, 7)}
            </button>
          )}
          {ready && task.branch && (
            <button
              className="btn small primary"
              disabled={accept.pending}
              onClick={() => void accept.run(true)}
              data-testid="accept-merge"
              title={`Accept ${task.key} and land it in the base branch (merge commit)`}
            >
              Accept and merge
            </button>
          )}
          {task.status === 'delivered' && (
            <button
              className={`btn small${ready && !task.branch ? ' primary' : ''}`}
              disabled={accept.pending}
              onClick={() => void accept.run()}
              data-testid="accept-task"
            >
              Accept
            </button>
          )}
          {task.flag && (
            <button
              className="btn small"
              disabled={ack.pending}
              onClick={() => void ack.run()}
              title="Re-pin its decisions to the current versions"
            >
              Acknowledge
            </button>
          )}
          {notice && assignee && task.flag && !notice.deliveredAt && (
            <button
              className="btn small"
              disabled={tell.pending}
              onClick={() => void tell.run(notice)}
              data-testid="tell-assignee"
              title="Send the notice to its session now, linked to this task"
            >
              Tell {assignee.name}
            </button>
          )}
        </div>
      )}
    </>
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

function updateWords(r: BranchUpdate, key: string): string {
  const to = r.head.slice(0, 7)
  if (r.outcome === 'current') return `${key} already has ${r.baseBranch} (${r.baseHead.slice(0, 7)}).`
  if (r.outcome === 'conflict')
    return `${r.baseBranch} conflicts with ${key} in ${r.conflicts.map((c) => c.file).join(', ')}: ${r.turn?.memberName ?? 'its assignee'} was asked to resolve it in its tree.`
  const verify = r.task.status === 'delivered' ? ' It needs verifying again on the new head.' : ''
  const turn = r.turn ? ` ${r.turn.memberName} was asked to test it.` : ''
  return `Updated from ${r.baseBranch}: ${key} is at ${to}.${verify}${turn}`
}

/** "Tess's test and Rev's review": who the delivery asked, for what. */
function waitingWords(asked: RefusalReason[]): string {
  const kind = (k: RefusalReason['reportKind']) => (k === 'implementation' ? 'implementation report' : (k ?? 'check'))
  const parts = asked.map((r) => `${r.action!.memberName ?? 'a member'}'s ${kind(r.reportKind)}`)
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '')
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
