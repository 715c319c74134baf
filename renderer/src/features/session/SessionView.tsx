import { useEffect, useState } from 'react'
import { Avatar, EmptyState, StatusDot, stateWords } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { MemberEditor } from '../team/MemberEditor'
import { RunsOn } from '../team/RunsOn'
import { Composer } from './Composer'
import { SessionList } from './SessionList'
import { ApprovalBar } from './ApprovalBar'
import { RetryButton } from './RetryButton'
import { ContinueButton } from './ContinueButton'
import { ArchiveButton } from '../archive/ArchiveButton'
import { TaskTurnsBanner, TaskTurnsPicker } from './TaskTurns'
import { fixedInSettings } from '../../../../shared/session-errors'
import './member-trouble.css'

export function SessionHeader({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const api = useApp((s) => s.api)
  const member = useApp((s) => s.members[memberId])
  const info = useApp((s) => s.sessions[memberId]?.info)
  const [editing, setEditing] = useState(false)
  const interrupt = useAction(async () => api.call('sessions.interrupt', { memberId }))
  const [confirmReset, setConfirmReset] = useState(false)
  const hasSteps = useApp((s) => (s.sessions[memberId]?.steps.length ?? 0) > 0)
  if (!member) return null
  const state = info?.state ?? 'idle'
  const busy = state === 'running' || state === 'waiting_approval'
  const settingsFix = state === 'error' && fixedInSettings(info?.errorCode)
  return (
    <div className={`session-head${compact ? ' compact' : ''}`} data-testid="session-head" data-state={state}>
      <Avatar id={member.id} name={member.name} size={compact ? 24 : 32} />
      <div className="session-head-main">
        <SessionTitle memberId={memberId} compact={compact} />
        {state === 'error' && info?.error && (
          <SessionStop
            memberId={memberId}
            compact={compact}
            error={info.error}
            errorCode={info.errorCode}
            settingsFix={settingsFix}
            onFix={() => setEditing(true)}
            onReset={() => setConfirmReset(true)}
          />
        )}
        <ContinueButton memberId={memberId} />
        {confirmReset && <ResetConfirm memberId={memberId} onDone={() => setConfirmReset(false)} />}
      </div>
      {busy && (
        <button
          className="btn small"
          onClick={() => void interrupt.run()}
          disabled={interrupt.pending}
          title="Stop at the next step boundary"
        >
          Interrupt
        </button>
      )}
      {!compact && !busy && hasSteps && !confirmReset && (
        <button
          className="icon-btn"
          onClick={() => setConfirmReset(true)}
          title="New conversation"
          aria-label={`New conversation with ${member.name}`}
        >
          ⟲
        </button>
      )}
      {!compact && !busy && <ArchiveButton target={{ kind: 'member', id: memberId }} className="btn small ghost" />}
      <button
        className="icon-btn"
        onClick={() => setEditing(true)}
        title={`${member.name}’s settings`}
        aria-label={`${member.name}’s settings`}
      >
        ⚙
      </button>
      {editing && (
        <MemberEditor
          member={member}
          fixing={settingsFix ? (info?.error ?? undefined) : undefined}
          onClose={() => setEditing(false)}
        />
      )}
    </div>
  )
}

/** The member's name and role, its state, what waits for it, and (in its own view) its model and task picker. */
function SessionTitle({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const member = useApp((s) => s.members[memberId])
  const info = useApp((s) => s.sessions[memberId]?.info)
  const selectMember = useApp((s) => s.selectMember)
  if (!member) return null
  const state = info?.state ?? 'idle'
  return (
    <>
      <div className="session-head-name">
        {compact ? (
          <button className="link-btn strong" onClick={() => selectMember(memberId)}>
            {member.name}
          </button>
        ) : (
          member.name
        )}
        <span className="muted"> · {member.role}</span>
        <RunsOn member={member} />
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
        {!compact && <TaskTurnsPicker memberId={memberId} />}
      </div>
    </>
  )
}

/** Why the member stopped, and what gets it going again: the settings, Retry, Restart, or a new conversation. */
function SessionStop(p: {
  memberId: string
  compact?: boolean
  error: string
  errorCode?: string | null
  settingsFix: boolean
  onFix(): void
  onReset(): void
}) {
  const api = useApp((s) => s.api)
  const member = useApp((s) => s.members[p.memberId])
  const restart = useAction(async () => api.call('sessions.restart', { memberId: p.memberId }))
  if (!member) return null
  return (
    <div className="error-inline session-stop" data-testid="session-error" data-code={p.errorCode ?? ''}>
      <span className="session-stop-text">{p.error}</span>
      {p.settingsFix ? (
        // Restart and a new conversation do not fix a key: the settings do, and saving them sends the message.
        <>
          <button
            className="btn small primary"
            onClick={p.onFix}
            data-testid="fix-in-settings"
            title={`Open ${member.name}’s provider settings; saving them sends the failed message again`}
          >
            Fix in settings
          </button>
          <RetryButton memberId={p.memberId} primary={false} />
        </>
      ) : (
        <>
          <RetryButton memberId={p.memberId} />
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
          {!p.compact && (
            <>
              {' '}
              <button className="link-btn" onClick={p.onReset}>
                Start a new conversation
              </button>{' '}
              if this keeps failing.
            </>
          )}
        </>
      )}
    </div>
  )
}

/** "Start a new conversation": said what it does, then Start over or Cancel. */
function ResetConfirm({ memberId, onDone }: { memberId: string; onDone(): void }) {
  const api = useApp((s) => s.api)
  const member = useApp((s) => s.members[memberId])
  const reset = useAction(async () => api.call('sessions.reset', { memberId }))
  if (!member) return null
  return (
    <div className="reset-confirm" role="group" aria-label="Start a new conversation">
      {member.name} starts again without the earlier messages; they stay in the store and the export.{' '}
      <button
        className="btn small primary"
        disabled={reset.pending}
        onClick={() => void reset.run().then((r) => r && onDone())}
      >
        Start over
      </button>{' '}
      <button className="btn small" onClick={onDone}>
        Cancel
      </button>
      {reset.error && <span className="error-inline"> {reset.error.message}</span>}
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
        {member.name} is your {member.role}. Tell it what you want built, or ask it to read the repository and suggest a
        plan.
      </p>
      <p>
        Confirmed trade-offs become decisions: hover a message and choose <b>Record decision</b>. Mention one as{' '}
        <code>D-1</code> anywhere and it shows as a live card everyone sees.
      </p>
    </EmptyState>
  )
}

export function MemberSession({ memberId, compact }: { memberId: string; compact?: boolean }) {
  const loadSession = useApp((s) => s.loadSession)
  // The team view's small panels show every turn; the member's own view may show one task's.
  const taskId = useApp((s) => (compact ? undefined : s.sessionTask[memberId]))
  useEffect(() => {
    void loadSession(memberId)
  }, [loadSession, memberId])
  return (
    <div
      className={`member-session${compact ? ' compact' : ''}`}
      data-testid="member-session"
      data-member-id={memberId}
    >
      <SessionHeader memberId={memberId} compact={compact} />
      {taskId && <TaskTurnsBanner memberId={memberId} taskId={taskId} />}
      <SessionList
        key={`${memberId}/${taskId ?? ''}`}
        memberId={memberId}
        taskId={taskId}
        empty={
          taskId ? (
            <div className="muted small task-turns-empty">No turn on this task yet.</div>
          ) : (
            <SessionEmpty memberId={memberId} compact={compact} />
          )
        }
      />
      <ApprovalBar memberId={memberId} keys={!compact} />
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
