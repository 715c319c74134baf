import { Avatar, EmptyState } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { openQuestionCount, pendingApprovalCount, selectProposals } from '../../stores/selectors'
import { ProposalCard } from '../decisions/ProposalCard'
import { ApproveButtons, Question } from '../session/ToolCall'
import { ApprovalPreview } from '../session/ApprovalPreview'

/** One member's tool calls waiting for the human, answered here as in the member's chat. */
function MemberApprovals({ memberId }: { memberId: string }) {
  const member = useApp((s) => s.members[memberId])
  const approvals = useApp((s) => s.sessions[memberId]?.info.pendingApprovals)
  const selectMember = useApp((s) => s.selectMember)
  if (!member || !approvals?.length) return null
  return (
    <>
      {approvals.map((a) => (
        <div key={a.callId} className="inbox-approval" data-testid="inbox-approval" data-member-id={memberId}>
          <button
            className="link-btn inbox-who"
            onClick={() => selectMember(memberId)}
            title={`Open ${member.name}’s session`}
          >
            <Avatar id={member.id} name={member.name} size={20} /> {member.name}
          </button>
          <div className="inbox-what">
            wants to run <code>{a.name}</code>
            {a.why && <span className="approval-why small">Asks because {a.why}.</span>}
            <ApprovalPreview argumentsText={a.argumentsText} current={a.current} />
          </div>
          <ApproveButtons memberId={memberId} callId={a.callId} tool={a.name} />
        </div>
      ))}
    </>
  )
}

/** A member's open question to the human, if it has one. */
function MemberQuestion({ memberId }: { memberId: string }) {
  const question = useApp((s) => s.sessions[memberId]?.info.question)
  return question ? <Question memberId={memberId} question={question.text || '(no text)'} /> : null
}

/** Everything waiting for the human: questions, tool calls to allow or deny, proposals to accept or reject. */
export function Inbox() {
  const proposals = useApp(selectProposals)
  const memberOrder = useApp((s) => s.memberOrder)
  const approvals = useApp(pendingApprovalCount)
  const questions = useApp(openQuestionCount)
  const pending = proposals.filter((p) => p.state === 'pending')
  const decided = proposals.filter((p) => p.state !== 'pending').reverse()
  if (!proposals.length && !approvals && !questions) {
    return (
      <div className="panel-section">
        <EmptyState title="Nothing waits for you">
          Questions members ask you, tool calls that need your approval and proposals to change a decision wait here
          (and in the member’s chat) until you answer them.
        </EmptyState>
      </div>
    )
  }
  return (
    <div className="panel-section" data-testid="inbox">
      {questions > 0 && (
        <>
          <h4>Questions ({questions})</h4>
          {memberOrder.map((id) => (
            <MemberQuestion key={id} memberId={id} />
          ))}
        </>
      )}
      {approvals > 0 && (
        <>
          <h4>Approvals ({approvals})</h4>
          {memberOrder.map((id) => (
            <MemberApprovals key={id} memberId={id} />
          ))}
        </>
      )}
      <h4>Proposals waiting for you ({pending.length})</h4>
      {pending.length === 0 && <div className="muted pad">No pending proposals.</div>}
      {pending.map((p) => (
        <ProposalCard key={p.id} proposal={p} />
      ))}
      {decided.length > 0 && <h4>Decided</h4>}
      {decided.map((p) => (
        <ProposalCard key={p.id} proposal={p} />
      ))}
    </div>
  )
}
