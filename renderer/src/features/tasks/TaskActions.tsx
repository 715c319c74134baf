import { useEffect, useState } from 'react'
import type { Member, Notice, Task } from '../../../../shared/schemas'
import { refusalReasons, type RefusalReason } from '../../api/errors'
import { Badge, ErrorText } from '../../components/ui'
import { whileMounted } from '../../lib/while-mounted'
import { stillShown, useBranchUpdates } from './branch-updates-store'
import { shortTime } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { nextSteps, type NextSteps } from './task-next-steps'
import { Refusal, updateWords } from './TaskRefusal'
import './task-actions.css'

/**
 * The task's next steps, all from the core's answer the task carries (Task.readiness, its accept check run dry, new
 * with every task.changed): "Ready to accept", or why not with the message that resolves each reason; "Deliver on
 * <commit>" after a passing implementation report that is still current; and for a flagged task Acknowledge plus
 * "Tell <assignee>" (or when the notice reached it). A refused Accept shows the refusal's reasons until the task
 * comes anew: one answer at a time, never one older than the task shown.
 */
export function TaskActions({ task }: { task: Task }) {
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const notice = useTaskNotice(task)
  const acts = useTaskActs(task)
  // What the last "Update from <base>" did, shown while the task is at the head it made (the reasons that offered it
  // are gone by then).
  const updated = useBranchUpdates((s) => s.byTask[task.id])
  // A conflict handed to the assignee is theirs until they deliver again: no second ask.
  const handedOver = stillShown(updated, task.artifact?.commit)
  const autoChecks = useApp((s) => s.workspaceSettings?.autoChecks ?? false)
  const byId = useApp((s) => s.members)
  const next = nextSteps(task, acts.refused, autoChecks, byId)
  const told = notice && assignee && task.flag ? { notice, assignee } : null
  return (
    <>
      {next.ready && (
        <div className="task-ready" data-testid="ready-to-accept">
          <Badge
            tone="good"
            title="Every required report is in, passing and based on the current decisions and the delivered commit"
          >
            Ready to accept
          </Badge>
        </div>
      )}
      {next.waiting.length > 0 && (
        <p className="task-waiting small muted" role="status" data-testid="checks-waiting">
          Waiting for {waitingWords(next.waiting)}
        </p>
      )}
      {next.trouble && (
        <Refusal
          task={task}
          next={next}
          canUpdate={!(handedOver && updated?.update.outcome === 'conflict')}
          trouble={next.trouble}
        />
      )}
      {updated && handedOver && (
        <p className="small muted" role="status" data-testid="update-result">
          {updateWords(updated.update, task.key)}
        </p>
      )}
      <ErrorText error={acts.error?.message} />
      {told && <NoticeLine {...told} />}
      <NextButtons task={task} next={next} acts={acts} told={told} />
    </>
  )
}

/** The accept, acknowledge, deliver and tell actions of a card, and the reasons of a refused Accept (until the task comes anew). */
function useTaskActs(task: Task) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [refusal, setRefusal] = useState<{ of: Task; reasons: RefusalReason[] } | null>(null)
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
  const refused = refusal?.of === task ? refusal.reasons : null
  const error = accept.error ?? ack.error ?? deliver.error ?? tell.error
  return { accept, ack, deliver, tell, refused, error }
}

type TaskActs = ReturnType<typeof useTaskActs>

/** When the notice about a flagged task reached its assignee, or that it has not yet. */
function NoticeLine({ notice, assignee }: { notice: Notice; assignee: Member }) {
  return (
    <div className="task-notice small" data-testid="task-notice">
      {notice.deliveredAt ? (
        <span className="muted" data-testid="notice-delivered">
          Notice delivered to {assignee.name} at {shortTime(notice.deliveredAt)}
        </span>
      ) : (
        <span className="muted">{assignee.name} has not read the notice yet</span>
      )}
    </div>
  )
}

/** Deliver on <commit>, Accept (and merge), Acknowledge, Tell <assignee>: each when it applies. */
function NextButtons({
  task,
  next,
  acts,
  told,
}: {
  task: Task
  next: NextSteps
  acts: TaskActs
  told: { notice: Notice; assignee: Member } | null
}) {
  if (task.status !== 'delivered' && !task.flag && !next.offer) return null
  return (
    <div className="tcard-actions">
      {next.offer && (
        <button
          className="btn small primary"
          disabled={acts.deliver.pending}
          onClick={() => void acts.deliver.run(next.offer!.commit)}
          data-testid="deliver-on"
          title={`${next.offer.reportKey} by the assignee passed on this commit`}
        >
          Deliver on {next.offer.commit.slice(0, 7)}
        </button>
      )}
      <AcceptButtons
        task={task}
        ready={next.ready}
        pending={acts.accept.pending}
        onAccept={(m) => void acts.accept.run(m)}
      />
      {task.flag && (
        <button
          className="btn small"
          disabled={acts.ack.pending}
          onClick={() => void acts.ack.run()}
          title="Re-pin its decisions to the current versions"
        >
          Acknowledge
        </button>
      )}
      {told && !told.notice.deliveredAt && (
        <button
          className="btn small"
          disabled={acts.tell.pending}
          onClick={() => void acts.tell.run(told.notice)}
          data-testid="tell-assignee"
          title="Send the notice to its session now, linked to this task"
        >
          Tell {told.assignee.name}
        </button>
      )}
    </div>
  )
}

/** The notice a flagged task's assignee was sent about it, re-read when the task or its pending notices change. */
function useTaskNotice(task: Task): Notice | null {
  const api = useApp((s) => s.api)
  const pendingNotices = useApp((s) => (task.assigneeId ? s.sessions[task.assigneeId]?.info.pendingNotices : undefined))
  const [notice, setNotice] = useState<Notice | null>(null)
  useEffect(() => {
    if (task.flag && task.assigneeId && task.flag !== 'requirements_updated') {
      return whileMounted(
        api.call('notices.list', { memberId: task.assigneeId }),
        (all) => setNotice(all.filter((n) => n.taskIds.includes(task.id)).at(-1) ?? null),
        () => setNotice(null),
      )
    }
  }, [api, task.id, task.flag, task.assigneeId, task.updatedAt, pendingNotices])
  return notice
}

/** "Accept and merge" (a ready task with a branch) and Accept (a delivered task). */
function AcceptButtons(p: { task: Task; ready: boolean; pending: boolean; onAccept(andMerge?: boolean): void }) {
  const { task } = p
  return (
    <>
      {p.ready && task.branch && (
        <button
          className="btn small primary"
          disabled={p.pending}
          onClick={() => p.onAccept(true)}
          data-testid="accept-merge"
          title={`Accept ${task.key} and land it in the base branch (merge commit)`}
        >
          Accept and merge
        </button>
      )}
      {task.status === 'delivered' && (
        <button
          className={`btn small${p.ready && !task.branch ? ' primary' : ''}`}
          disabled={p.pending}
          onClick={() => p.onAccept()}
          data-testid="accept-task"
        >
          Accept
        </button>
      )}
    </>
  )
}

/** "Tess's test and Rev's review": who the delivery asked, for what. */
function waitingWords(asked: RefusalReason[]): string {
  const kind = (k: RefusalReason['reportKind']) => (k === 'implementation' ? 'implementation report' : (k ?? 'check'))
  const parts = asked.map((r) => `${r.action!.memberName ?? 'a member'}'s ${kind(r.reportKind)}`)
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '')
}
