import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { ChoiceButtons } from '../../components/ChoiceButtons'
import { SubmitForm } from '../../components/SubmitForm'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import './plan-review.css'

/**
 * A plan-first task on its card (issue 33): while its assignee plans, a neutral line; a plan waiting for you, its text
 * with Approve, Request changes (a comment the assignee gets, and it plans again) and Reject (back to to-do, or
 * cancel the task); an approved plan, folded under one line.
 */
export function PlanReview({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const author = useApp((s) => (task.plan?.authorId ? s.members[task.plan.authorId] : undefined))
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const [mode, setMode] = useState<'read' | 'changes' | 'reject'>('read')
  const [comment, setComment] = useState('')
  const approve = useAction(async () => applyTask((await api.call('plans.approve', { taskId: task.id })).task))
  const requestChanges = useAction(async () => {
    applyTask((await api.call('plans.requestChanges', { taskId: task.id, comment: comment.trim() })).task)
    setComment('')
    setMode('read')
  })
  const reject = useAction(async (to: 'todo' | 'cancelled') => {
    applyTask((await api.call('plans.reject', { taskId: task.id, to })).task)
    setMode('read')
  })
  if (!task.planFirst) return null
  const plan = task.plan ?? null
  const who = author?.name ?? assignee?.name ?? 'the assignee'

  if (plan?.state === 'approved') return <ApprovedPlan n={plan.n} body={plan.body} />
  if (plan?.state !== 'pending') {
    if (task.status !== 'in_progress')
      return (
        <div className="plan-line small muted" data-testid="plan-first-line">
          plan first{plan?.state === 'rejected' ? ` · plan ${plan.n} rejected` : ''}
        </div>
      )
    return (
      <div className="plan-line small muted" data-testid="plan-planning">
        plan first · {assignee?.name ?? 'the assignee'} is{' '}
        {plan?.state === 'changes_requested' ? `revising plan ${plan.n}` : 'planning'} (read-only tree)
      </div>
    )
  }

  const busy = approve.pending || requestChanges.pending || reject.pending
  return (
    <section className="plan-review" data-testid="plan-review" aria-label={`Plan ${plan.n} for ${task.key}`}>
      <div className="plan-review-head">
        <b>Plan {plan.n}</b>
        <span className="muted small">from {who} · waiting for your review; no code until you approve</span>
      </div>
      <pre className="plan-body" data-testid="plan-body">
        {plan.body}
      </pre>
      {mode === 'changes' && (
        <ChangesForm
          who={who}
          comment={comment}
          setComment={setComment}
          busy={busy}
          onSend={() => void requestChanges.run()}
          onCancel={() => setMode('read')}
        />
      )}
      {mode !== 'changes' && (
        <PlanChoices
          mode={mode}
          setMode={setMode}
          busy={busy}
          taskKey={task.key}
          n={plan.n}
          who={who}
          onApprove={() => void approve.run()}
          onReject={(to) => void reject.run(to)}
        />
      )}
      <ErrorText error={(approve.error ?? requestChanges.error ?? reject.error)?.message} />
    </section>
  )
}

/** An approved plan, folded under one line. */
function ApprovedPlan({ n, body }: { n: number; body: string }) {
  const [open, setOpen] = useState(false)
  return (
    <div className="plan-line small" data-testid="plan-approved">
      <button className="linklike" onClick={() => setOpen(!open)} aria-expanded={open}>
        plan {n} approved
      </button>
      {open && <pre className="plan-body">{body}</pre>}
    </div>
  )
}

/** Request changes: the comment the assignee gets (it plans again), Send and Cancel. */
function ChangesForm(p: {
  who: string
  comment: string
  setComment(text: string): void
  busy: boolean
  onSend(): void
  onCancel(): void
}) {
  return (
    <SubmitForm
      className="plan-form"
      onSubmit={() => {
        if (p.comment.trim()) p.onSend()
      }}
    >
      <textarea
        value={p.comment}
        onChange={(e) => p.setComment(e.target.value)}
        rows={3}
        autoFocus
        aria-label="What to change in the plan"
        placeholder={`What ${p.who} should change; it plans again`}
        data-testid="plan-comment"
      />
      <div className="plan-actions">
        <button className="btn small primary" disabled={p.busy || !p.comment.trim()} data-testid="plan-send-changes">
          Send to {p.who}
        </button>
        <button type="button" className="btn small" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </SubmitForm>
  )
}

/** Approve, Request changes, Reject; once Reject is chosen: back to to do, or cancel the task, or keep it. */
function PlanChoices(p: {
  mode: 'read' | 'reject'
  setMode(mode: 'read' | 'changes' | 'reject'): void
  busy: boolean
  taskKey: string
  n: number
  who: string
  onApprove(): void
  onReject(to: 'todo' | 'cancelled'): void
}) {
  return (
    <>
      {p.mode === 'reject' && (
        <div className="plan-actions plan-reject" role="group" aria-label="Reject the plan">
          <span className="small">Reject plan {p.n}, and</span>
          <ChoiceButtons
            disabled={p.busy}
            choices={[
              {
                label: `move ${p.taskKey} back to to do`,
                onClick: () => p.onReject('todo'),
                testId: 'plan-reject-todo',
              },
              {
                label: `cancel ${p.taskKey}`,
                tone: 'danger',
                onClick: () => p.onReject('cancelled'),
                testId: 'plan-reject-cancel',
              },
            ]}
          />
          <button type="button" className="btn small ghost" onClick={() => p.setMode('read')}>
            Keep it
          </button>
        </div>
      )}
      {p.mode === 'read' && (
        <div className="plan-actions">
          <ChoiceButtons
            disabled={p.busy}
            choices={[
              {
                label: 'Approve',
                tone: 'primary',
                onClick: () => p.onApprove(),
                testId: 'plan-approve',
                title: `${p.who} writes the code now, following this plan`,
              },
              { label: 'Request changes', onClick: () => p.setMode('changes'), testId: 'plan-changes' },
              { label: 'Reject', tone: 'ghost', onClick: () => p.setMode('reject'), testId: 'plan-reject' },
            ]}
          />
        </div>
      )}
    </>
  )
}
