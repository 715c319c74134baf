import type { ParsedParams, Result } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Proposal } from '../../../../shared/schemas'
import type { DecisionRow } from '../../store/decisions-repo'
import type { ProposalRow } from '../../store/proposals-repo'
import { actorOf, decisionRow, requireDecider, rowOf, type Ctx } from '../context'
import { changeDecisionTx, emitDecisionChange } from './decision-change'
import { makeKey, now } from '../ids'
import { toProposal } from '../mappers'

type ProposalFields = Pick<
  ParsedParams<'proposals.create'>,
  'title' | 'statement' | 'rationale' | 'status' | 'reason' | 'sourceMessageId'
>

export function createProposalTx(
  ctx: Ctx,
  decision: DecisionRow,
  authorId: number | null,
  p: ProposalFields,
): ProposalRow {
  if (p.title === undefined && p.statement === undefined && p.rationale === undefined && p.status === undefined) {
    throw new ApiError('invalid_params', 'a proposal must change the title, statement, rationale or status')
  }
  const id = ctx.store.proposals.insert({
    decision_id: decision.id,
    author_id: authorId,
    base_version: decision.version,
    title: p.title ?? null,
    statement: p.statement ?? null,
    rationale: p.rationale ?? null,
    status: p.status ?? null,
    reason: p.reason ?? '',
    source_message_id: p.sourceMessageId ?? null,
    created_at: now(),
  })
  ctx.store.log.bump('proposals.created')
  ctx.store.log.appendEvent('proposal.created', { proposalId: id, decisionId: decision.id, authorId }, now())
  return ctx.store.proposals.get(id)!
}

export function createProposal(ctx: Ctx, p: ParsedParams<'proposals.create'>): Proposal {
  const actor = actorOf(ctx, p.actorId)
  if (actor.authority === 'observer')
    throw new ApiError('forbidden', `${actor.name} is an observer and may not propose changes`)
  const decision = decisionRow(ctx, p.decisionId)
  const row = ctx.store.transaction(() => createProposalTx(ctx, decision, actor.memberId, p))
  const proposal = toProposal(ctx.wsId, row)
  ctx.emit('proposal.changed', { workspaceId: ctx.wsId, proposal })
  return proposal
}

function proposalRow(ctx: Ctx, proposalId: string): ProposalRow {
  const row = ctx.store.proposals.get(rowOf(ctx, 'proposal', proposalId, 'proposalId'))
  if (!row) throw new ApiError('not_found', `proposalId: proposal ${proposalId} does not exist`)
  return row
}

function requirePending(row: ProposalRow): void {
  if (row.state !== 'pending')
    throw new ApiError('invalid_transition', `${makeKey('proposal', row.id)} was already ${row.state}`)
}

/** Applies the proposal as one decision change against the version it was written for (compare-and-set). */
export function acceptProposal(ctx: Ctx, p: ParsedParams<'proposals.accept'>): Result<'proposals.accept'> {
  const actor = actorOf(ctx, p.actorId)
  requireDecider(actor, 'accept proposals')
  const row = proposalRow(ctx, p.proposalId)
  requirePending(row)
  const result = ctx.store.transaction(() => {
    const change = changeDecisionTx(
      ctx,
      row.decision_id,
      row.base_version,
      {
        title: row.title ?? undefined,
        statement: row.statement ?? undefined,
        rationale: row.rationale ?? undefined,
        status: row.status ?? undefined,
      },
      {
        reason: row.reason || `accepted ${makeKey('proposal', row.id)}`,
        editorial: false,
        actorId: actor.memberId,
        sourceMessageId: row.source_message_id,
      },
    )
    if (!ctx.store.proposals.decide(row.id, 'accepted', actor.memberId, now(), null))
      requirePending(ctx.store.proposals.get(row.id)!)
    ctx.store.log.bump('proposals.accepted')
    return { change, proposal: toProposal(ctx.wsId, ctx.store.proposals.get(row.id)!) }
  })
  ctx.emit('proposal.changed', { workspaceId: ctx.wsId, proposal: result.proposal })
  emitDecisionChange(ctx, result.change, { editorial: false, reason: row.reason, actorId: p.actorId ?? null })
  return { proposal: result.proposal, decision: result.change.decision, impact: result.change.impact }
}

export function rejectProposal(ctx: Ctx, p: ParsedParams<'proposals.reject'>): Proposal {
  const actor = actorOf(ctx, p.actorId)
  requireDecider(actor, 'reject proposals')
  const row = proposalRow(ctx, p.proposalId)
  requirePending(row)
  const updated = ctx.store.transaction(() => {
    if (!ctx.store.proposals.decide(row.id, 'rejected', actor.memberId, now(), p.reason ?? null))
      requirePending(ctx.store.proposals.get(row.id)!)
    ctx.store.log.bump('proposals.rejected')
    return ctx.store.proposals.get(row.id)!
  })
  const proposal = toProposal(ctx.wsId, updated)
  ctx.emit('proposal.changed', { workspaceId: ctx.wsId, proposal })
  return proposal
}

export function listProposals(ctx: Ctx, state?: string): Proposal[] {
  return ctx.store.proposals.list(state).map((r) => toProposal(ctx.wsId, r))
}
