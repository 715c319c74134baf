import { EmptyState } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { selectProposals } from '../../stores/selectors'
import { ProposalCard } from '../decisions/ProposalCard'

export function Inbox() {
  const proposals = useApp(selectProposals)
  const pending = proposals.filter((p) => p.state === 'pending')
  const decided = proposals.filter((p) => p.state !== 'pending').reverse()
  if (!proposals.length) {
    return (
      <div className="panel-section">
        <EmptyState title="Nothing to decide">
          When a member with proposer authority wants a decision changed, its proposal waits here (and in the chat) until you accept or reject it.
        </EmptyState>
      </div>
    )
  }
  return (
    <div className="panel-section" data-testid="inbox">
      <h4>Waiting for you ({pending.length})</h4>
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
