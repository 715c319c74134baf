import { useEffect, useState } from 'react'
import type { Impact, Proposal } from '../../../../shared/schemas'
import { Badge, ErrorText } from '../../components/ui'
import { describeImpact } from '../../lib/impact'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { memberName } from '../../stores/selectors'
import { Diff } from './Diff'

const stateTone = { pending: 'warn', accepted: 'good', rejected: 'bad' } as const

/** A proposed change to a decision, with its diff, impact preview and accept / reject. */
export function ProposalCard({ proposal }: { proposal: Proposal }) {
  const decision = useApp((s) => s.decisions[proposal.decisionId])
  const author = useApp(memberName(proposal.authorId))
  const members = useApp((s) => s.members)
  const pending = proposal.state === 'pending'

  const impact = useProposalImpact(proposal, decision?.version)

  return (
    <div className={`pcard ps-${proposal.state}`} data-testid="proposal-card" data-key={proposal.key}>
      <div className="dcard-head">
        <span className="dkey">{proposal.key}</span>
        <span className="dtitle">
          Change to {decision?.key ?? 'a decision'} (from v{proposal.baseVersion}) by {author}
        </span>
        <span className="spacer" />
        <Badge tone={stateTone[proposal.state]}>{proposal.state}</Badge>
      </div>
      {proposal.title && decision && proposal.title !== decision.title && (
        <div className="pcard-line">
          Title: <Diff before={decision.title} after={proposal.title} />
        </div>
      )}
      {proposal.statement && (
        <div className="pcard-diff">
          {decision && pending ? <Diff before={decision.statement} after={proposal.statement} /> : proposal.statement}
        </div>
      )}
      {proposal.status && <div className="pcard-line">Status → {proposal.status}</div>}
      {proposal.reason && <div className="pcard-reason">“{proposal.reason}”</div>}
      {pending && impact && <div className="impact-preview">Impact if accepted: {describeImpact(impact, members)}</div>}
      {!pending && proposal.decisionReason && <div className="pcard-reason">Decided: {proposal.decisionReason}</div>}
      <ProposalActions proposal={proposal} />
    </div>
  )
}

/** What accepting the proposal would flag, while it is pending (read again when the decision moves). */
function useProposalImpact(proposal: Proposal, decisionVersion: number | undefined): Impact | null {
  const api = useApp((s) => s.api)
  const [impact, setImpact] = useState<Impact | null>(null)
  const pending = proposal.state === 'pending'
  useEffect(() => {
    if (!pending || (!proposal.statement && !proposal.status)) return
    let live = true
    api
      .call('decisions.previewImpact', {
        decisionId: proposal.decisionId,
        ...(proposal.statement ? { statement: proposal.statement } : {}),
        ...(proposal.status ? { status: proposal.status } : {}),
      })
      .then((i) => live && setImpact(i))
      .catch(() => {})
    return () => {
      live = false
    }
  }, [api, pending, proposal.decisionId, proposal.statement, proposal.status, decisionVersion])
  return impact
}

/** Accept, or reject with an optional reason. */
function ProposalActions({ proposal }: { proposal: Proposal }) {
  const api = useApp((s) => s.api)
  const applyProposal = useApp((s) => s.applyProposal)
  const applyDecision = useApp((s) => s.applyDecision)
  const [rejectReason, setRejectReason] = useState<string | null>(null)
  const accept = useAction(async () => {
    const r = await api.call('proposals.accept', { proposalId: proposal.id })
    applyProposal(r.proposal)
    applyDecision(r.decision)
  })
  const reject = useAction(async () => {
    const p = await api.call('proposals.reject', {
      proposalId: proposal.id,
      ...(rejectReason?.trim() ? { reason: rejectReason.trim() } : {}),
    })
    applyProposal(p)
    setRejectReason(null)
  })
  return (
    <>
      <ErrorText error={accept.error?.message ?? reject.error?.message} />
      {proposal.state === 'pending' &&
        (rejectReason === null ? (
          <div className="dcard-actions">
            <button className="btn primary small" disabled={accept.pending} onClick={() => void accept.run()}>
              Accept
            </button>
            <button className="btn small" onClick={() => setRejectReason('')}>
              Reject
            </button>
          </div>
        ) : (
          <div className="dcard-actions">
            <input
              className="grow"
              value={rejectReason}
              onChange={(e) => setRejectReason(e.target.value)}
              placeholder="Why not (optional)"
              aria-label="Reject reason"
            />
            <button className="btn small danger" disabled={reject.pending} onClick={() => void reject.run()}>
              Reject
            </button>
            <button className="btn small" onClick={() => setRejectReason(null)}>
              Cancel
            </button>
          </div>
        ))}
    </>
  )
}
