import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
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
  const [showApproved, setShowApproved] = useState(false)
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

  if (plan?.state === 'approved')
    return (
      <div className="plan-line small" data-testid="plan-approved">
        <button className="linklike" onClick={() => setShowApproved(!showApproved)} aria-expanded={showApproved}>
          plan {plan.n} approved
        </button>
        {showApproved && <pre className="plan-body">{plan.body}</pre>}
      </div>
    )

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
        <form
          className="plan-form"
          onSubmit={(e) => {
            e.preventDefault()
            if (comment.trim()) void requestChanges.run()
          }}
        >
          <textarea
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            rows={3}
            autoFocus
            aria-label="What to change in the plan"
            placeholder={`What ${who} should change; it plans again`}
            data-testid="plan-comment"
          />
          <div className="plan-actions">
            <button className="btn small primary" disabled={busy || !comment.trim()} data-testid="plan-send-changes">
              Send to {who}
            </button>
            <button type="button" className="btn small" onClick={() => setMode('read')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mode === 'reject' && (
        <div className="plan-actions plan-reject" role="group" aria-label="Reject the plan">
          <span className="small">Reject plan {plan.n}, and</span>
          <button
            className="btn small"
            disabled={busy}
            onClick={() => void reject.run('todo')}
            data-testid="plan-reject-todo"
          >
            move {task.key} back to to do
          </button>
          <button
            className="btn small danger"
            disabled={busy}
            onClick={() => void reject.run('cancelled')}
            data-testid="plan-reject-cancel"
          >
            cancel {task.key}
          </button>
          <button type="button" className="btn small ghost" onClick={() => setMode('read')}>
            Keep it
          </button>
        </div>
      )}
      {mode === 'read' && (
        <div className="plan-actions">
          <button
            className="btn small primary"
            disabled={busy}
            onClick={() => void approve.run()}
            data-testid="plan-approve"
            title={`${who} writes the code now, following this plan`}
          >
            Approve
          </button>
          <button className="btn small" disabled={busy} onClick={() => setMode('changes')} data-testid="plan-changes">
            Request changes
          </button>
          <button
            className="btn small ghost"
            disabled={busy}
            onClick={() => setMode('reject')}
            data-testid="plan-reject"
          >
            Reject
          </button>
        </div>
      )}
      <ErrorText error={(approve.error ?? requestChanges.error ?? reject.error)?.message} />
    </section>
  )
}
