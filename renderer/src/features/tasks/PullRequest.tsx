import { useEffect } from 'react'
import type { Task, TaskPullRequest } from '../../../../shared/schemas'
import { Badge, ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import './pull-request.css'

const ciTone = { success: 'good', failure: 'bad', pending: 'info', none: 'neutral' } as const
const ciWords = { success: 'CI passed', failure: 'CI failed', pending: 'CI running', none: 'no CI' } as const
const stateTone = { open: 'info', merged: 'good', closed: 'neutral' } as const

/** The review comments as one message to the assignee: where each is, and what it says. */
function commentsMessage(task: Task, pr: TaskPullRequest): string {
  const lines = pr.reviewComments.map(
    (c) => `- ${c.author}${c.path ? ` on ${c.path}${c.line ? `:${c.line}` : ''}` : ''}: ${c.body}`,
  )
  return `Review comments on the pull request of ${task.key} (${pr.url}):\n${lines.join('\n')}\nPlease address them on the task's branch and deliver again.`
}

/**
 * A task's pull request on the card: "Push & open PR" for a delivered or accepted task with a branch (the user's
 * action only), then the PR's link, state and CI, its review comments (sent to the assignee as a message on request),
 * and Refresh. The card's opening refreshes it once (`open`); nothing polls.
 */
export function PullRequestLine({ task, open }: { task: Task; open: boolean }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const push = useAction(async () => applyTask(await api.call('tasks.openPullRequest', { taskId: task.id })))
  const refresh = useAction(async () => applyTask(await api.call('tasks.refreshPullRequest', { taskId: task.id })))
  const send = useAction(async (pr: TaskPullRequest) =>
    api.call('sessions.send', { memberId: task.assigneeId!, taskId: task.id, text: commentsMessage(task, pr) }),
  )
  const pr = task.pullRequest ?? null
  const hasPr = pr !== null
  const run = refresh.run
  useEffect(() => {
    if (open && hasPr) void run()
  }, [open, hasPr, run])

  if (!pr) {
    if (!task.branch || task.merged || (task.status !== 'accepted' && task.status !== 'delivered')) return null
    return (
      <div className="pr-line small" data-testid="pull-request">
        <button
          className="btn small"
          disabled={push.pending}
          onClick={() => void push.run()}
          data-testid="open-pull-request"
          title={`Push ${task.branch} to the remote with your own git, and open a pull request on GitHub with ${task.key}'s evidence`}
        >
          {push.pending ? 'Pushing…' : 'Push & open PR'}
        </button>
        <ErrorText error={push.error?.message} />
      </div>
    )
  }
  return (
    <div className="pr-line small" data-testid="pull-request" data-state={pr.state} data-ci={pr.ci}>
      <PullRequestHead pr={pr} refreshing={refresh.pending} onRefresh={() => void refresh.run()} />
      <FailedChecks pr={pr} />
      {pr.reviewComments.length > 0 && (
        <ReviewComments
          pr={pr}
          canSend={!!task.assigneeId && pr.state === 'open'}
          sending={send.pending}
          onSend={() => void send.run(pr)}
        />
      )}
      <ErrorText error={refresh.error?.message ?? send.error?.message} />
    </div>
  )
}

/** The PR's link, repository, state and CI, and Refresh. */
function PullRequestHead({
  pr,
  refreshing,
  onRefresh,
}: {
  pr: TaskPullRequest
  refreshing: boolean
  onRefresh(): void
}) {
  return (
    <div className="pr-head">
      <a href={pr.url} target="_blank" rel="noreferrer" data-testid="pull-request-link" title={pr.url}>
        PR #{pr.number}
      </a>
      <span className="muted">
        {pr.owner}/{pr.repo}
      </span>
      <Badge tone={stateTone[pr.state]}>{pr.state}</Badge>
      <Badge
        tone={ciTone[pr.ci]}
        title={pr.checks.map((c) => `${c.name}: ${c.state}`).join('\n') || 'no status or check run on the head'}
      >
        <span data-testid="pull-request-ci">{ciWords[pr.ci]}</span>
      </Badge>
      <button
        className="btn small ghost"
        disabled={refreshing}
        onClick={onRefresh}
        data-testid="refresh-pull-request"
        title="Read the pull request's state, CI and review comments from GitHub again"
      >
        {refreshing ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  )
}

/** The names of the checks that failed, when any did. */
function FailedChecks({ pr }: { pr: TaskPullRequest }) {
  if (!pr.checks.some((c) => c.state === 'failure')) return null
  return (
    <div className="pr-failed">
      failed:{' '}
      {pr.checks
        .filter((c) => c.state === 'failure')
        .map((c) => c.name)
        .join(', ')}
    </div>
  )
}

/** The review comments, where each is and what it says, and (for an open PR with an assignee) Send to assignee. */
function ReviewComments({
  pr,
  canSend,
  sending,
  onSend,
}: {
  pr: TaskPullRequest
  canSend: boolean
  sending: boolean
  onSend(): void
}) {
  return (
    <div className="pr-comments" data-testid="pull-request-comments">
      <ul>
        {pr.reviewComments.map((c) => (
          <li key={c.id}>
            <b>{c.author}</b>
            {c.path && (
              <span className="muted">
                {' '}
                {c.path}
                {c.line ? `:${c.line}` : ''}
              </span>
            )}
            : {c.body}
          </li>
        ))}
      </ul>
      {canSend && (
        <button className="btn small" disabled={sending} onClick={onSend} data-testid="send-review-comments">
          {sending ? 'Sending…' : 'Send to assignee'}
        </button>
      )}
    </div>
  )
}
