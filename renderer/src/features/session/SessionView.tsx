import { useEffect, useState } from 'react'
import { Avatar, EmptyState, StatusDot, stateWords } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { MemberEditor } from '../team/MemberEditor'
import { Composer } from './Composer'
import { SessionList } from './SessionList'
import { ApproveButtons } from './ToolCall'
import { approvalSummary } from './ApprovalPreview'
import { RetryButton } from './RetryButton'
import { ArchiveButton } from '../archive/ArchiveButton'

function ApprovalBar({ memberId }: { memberId: string }) {
  const approvals = useApp((s) => s.sessions[memberId]?.info.pendingApprovals)
  if (!approvals?.length) return null
  return (
    <div className="approval-bar" data-testid="approval-bar">
      {approvals.map((a) => (
        <div key={a.callId} className="approval-item">
          <span>
            Wants to run <code>{a.name}</code> <span className="muted">{approvalSummary(a.argumentsText)}</span>
          </span>
          <ApproveButtons memberId={memberId} callId={a.callId} tool={a.name} />
        </div>
      ))}
    </div>
  )
}

export function SessionHeader({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const api = useApp((s) => s.api)
  const member = useApp((s) => s.members[memberId])
  const info = useApp((s) => s.sessions[memberId]?.info)
  const selectMember = useApp((s) => s.selectMember)
  const [editing, setEditing] = useState(false)
  const interrupt = useAction(async () => api.call('sessions.interrupt', { memberId }))
  const reset = useAction(async () => api.call('sessions.reset', { memberId }))
  const restart = useAction(async () => api.call('sessions.restart', { memberId }))
  const [confirmReset, setConfirmReset] = useState(false)
  const hasSteps = useApp((s) => (s.sessions[memberId]?.steps.length ?? 0) > 0)
  if (!member) return null
  const state = info?.state ?? 'idle'
  const busy = state === 'running' || state === 'waiting_approval'
  return (
    <div className={`session-head${compact ? ' compact' : ''}`} data-testid="session-head" data-state={state}>
      <Avatar id={member.id} name={member.name} size={compact ? 24 : 32} />
      <div className="session-head-main">
        <div className="session-head-name">
          {compact ? (
            <button className="link-btn strong" onClick={() => selectMember(memberId)}>
              {member.name}
            </button>
          ) : (
            member.name
          )}
          <span className="muted"> · {member.role}</span>
        </div>
        <div className="session-head-sub">
          <StatusDot state={state} /> {stateWords[state]}
          {info?.queued ? ` · ${info.queued} queued` : ''}
          {info?.pendingNotices ? ` · ${info.pendingNotices} notice${info.pendingNotices === 1 ? '' : 's'} pending` : ''}
          {!compact && (
            <span className="muted">
              {' '}
              · {member.provider ? member.provider.model : 'no provider'} · {member.authority}
            </span>
          )}
        </div>
        {state === 'error' && info?.error && (
          <div className="error-inline">
            {info.error} <RetryButton memberId={memberId} />
            <button
              className="btn small"
              onClick={() => void restart.run()}
              disabled={restart.pending}
              data-testid="restart-member"
              title={member.provider?.kind === 'acp' ? 'Start its agent again and resume the queue' : 'Resume the queue'}
            >
              Restart
            </button>
            {restart.error && <span className="error-inline"> {restart.error.message}</span>}
            {!compact && (
              <>
                {' '}
                <button className="link-btn" onClick={() => setConfirmReset(true)}>
                  Start a new conversation
                </button>{' '}
                if this keeps failing.
              </>
            )}
          </div>
        )}
        {confirmReset && (
          <div className="reset-confirm" role="group" aria-label="Start a new conversation">
            {member.name} starts again without the earlier messages; they stay in the store and the export.{' '}
            <button className="btn small primary" disabled={reset.pending} onClick={() => void reset.run().then((r) => r && setConfirmReset(false))}>
              Start over
            </button>{' '}
            <button className="btn small" onClick={() => setConfirmReset(false)}>
              Cancel
            </button>
            {reset.error && <span className="error-inline"> {reset.error.message}</span>}
          </div>
        )}
      </div>
      {busy && (
        <button className="btn small" onClick={() => void interrupt.run()} disabled={interrupt.pending} title="Stop at the next step boundary">
          Interrupt
        </button>
      )}
      {!compact && !busy && hasSteps && !confirmReset && (
        <button className="icon-btn" onClick={() => setConfirmReset(true)} title="New conversation" aria-label={`New conversation with ${member.name}`}>
          ⟲
        </button>
      )}
      {!compact && !busy && <ArchiveButton target={{ kind: 'member', id: memberId }} className="btn small ghost" />}
      <button className="icon-btn" onClick={() => setEditing(true)} title={`${member.name}’s settings`} aria-label={`${member.name}’s settings`}>
        ⚙
      </button>
      {editing && <MemberEditor member={member} onClose={() => setEditing(false)} />}
    </div>
  )
}

function SessionEmpty({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const member = useApp((s) => s.members[memberId])
  if (!member) return null
  // A team-view panel is small: one line, not the whole introduction.
  if (compact) return <div className="session-empty-compact muted small">No messages with {member.name} yet.</div>
  return (
    <EmptyState title={`Start a conversation with ${member.name}`}>
      <p>
        {member.name} is your {member.role}. Tell it what you want built, or ask it to read the repository and suggest a plan.
      </p>
      <p>
        Confirmed trade-offs become decisions: hover a message and choose <b>Record decision</b>. Mention one as <code>D-1</code> anywhere and it shows as a live card everyone sees.
      </p>
    </EmptyState>
  )
}

export function MemberSession({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const loadSession = useApp((s) => s.loadSession)
  useEffect(() => {
    void loadSession(memberId)
  }, [loadSession, memberId])
  return (
    <div className={`member-session${compact ? ' compact' : ''}`} data-testid="member-session" data-member-id={memberId}>
      <SessionHeader memberId={memberId} compact={compact} />
      <SessionList key={memberId} memberId={memberId} empty={<SessionEmpty memberId={memberId} compact={compact} />} />
      <ApprovalBar memberId={memberId} />
      <Composer memberId={memberId} compact={compact} autoFocus={!compact} />
    </div>
  )
}

export function TeamView() {
  const order = useApp((s) => s.memberOrder)
  return (
    <div className="team-view" data-testid="team-view">
      {order.map((id) => (
        <MemberSession key={id} memberId={id} compact />
      ))}
    </div>
  )
}
