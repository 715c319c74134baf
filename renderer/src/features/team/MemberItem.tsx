import { Avatar, StatusDot, stateWords } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { RunsOn } from './RunsOn'

/** A member in the sidebar: its avatar and state, what it waits for, and its unread replies; a press opens its session. */
export function MemberItem({ id, index }: { id: string; index: number }) {
  const member = useApp((s) => s.members[id])
  // Only what the item shows: a streaming reply changes the session many times a second.
  const info = useApp((s) => s.sessions[id]?.info)
  const unread = useApp((s) => s.sessions[id]?.unread ?? 0)
  const selected = useApp((s) => s.view === 'member' && s.selectedMemberId === id)
  const selectMember = useApp((s) => s.selectMember)
  if (!member) return null
  const state = info?.state ?? 'idle'
  const approvals = info?.pendingApprovals.length ?? 0
  // Idle without a provider is not ready: it cannot answer until it gets an agent and model.
  const noModel = !member.provider && state === 'idle'
  return (
    <button
      className={`member-item${selected ? ' selected' : ''}`}
      onClick={() => selectMember(id)}
      data-testid="member-item"
      data-member-id={id}
      data-state={state}
      data-no-model={noModel ? 'true' : undefined}
      title={`${member.name} (${member.role}) — ${noModel ? 'no model: give it an agent and model in its settings' : stateWords[state]}${index < 9 ? `  ·  Ctrl/⌘ ${index + 1}` : ''}`}
    >
      <span className="member-avatar">
        <Avatar id={member.id} name={member.name} />
        {noModel ? (
          <span className="status-dot status-nomodel" title="no model" aria-label="no model" />
        ) : (
          <StatusDot state={state} />
        )}
      </span>
      <span className="member-text">
        <span className="member-name">
          {member.name}
          <RunsOn member={member} />
        </span>
        {noModel ? (
          <span className="member-state state-nomodel" data-testid="no-model">
            no model
          </span>
        ) : (
          <span className={`member-state state-${state}`}>
            {state === 'idle' ? (info?.question ? 'has a question for you' : member.role) : stateWords[state]}
          </span>
        )}
      </span>
      <span className="member-badges">
        {info?.question && (
          <span
            className="count accent"
            title={`${member.name} asks you: ${info.question.text}`}
            data-testid="question-badge"
          >
            ?
          </span>
        )}
        {approvals > 0 && (
          <span className="count warn" title={`${approvals} approval${approvals === 1 ? '' : 's'} waiting`}>
            !
          </span>
        )}
        {info && info.pendingNotices > 0 && (
          <span className="count info" title={`${info.pendingNotices} notice(s) not yet seen by ${member.name}`}>
            {info.pendingNotices}
          </span>
        )}
        {unread > 0 && (
          <span className="count accent" title="new replies">
            {unread}
          </span>
        )}
      </span>
    </button>
  )
}
