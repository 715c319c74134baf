import type { ParsedParams, Result } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Decision, Impact } from '../../../../shared/schemas'
import type { DecisionStatusValue } from '../../store/decisions-repo'
import { actorOf, decisionRow, type Ctx } from '../context'
import { changeDecisionTx, emitDecisionChange, type DecisionChange } from './decision-change'
import { contentHash } from './fingerprint'
import { makeKey, now } from '../ids'
import { emptyImpact } from './impact'
import { toDecision, toProposal } from '../mappers'
import { mergedTasksOf } from './follow-ups'
import { workspaceSettings } from '../workspace/workspace-settings'
import { createProposalTx } from './proposals'
import { assertAtVersion } from './version-check'

export function createDecision(ctx: Ctx, p: ParsedParams<'decisions.create'>): Decision {
  const actor = actorOf(ctx, p.actorId)
  if (actor.authority === 'observer')
    throw new ApiError('forbidden', `${actor.name} is an observer and may not record decisions`)
  // A proposer's decision starts as a proposal for a decider to accept.
  const status: DecisionStatusValue = actor.authority === 'proposer' ? 'proposed' : (p.status ?? 'accepted')
  const supersedes = p.supersedes === undefined ? null : decisionRow(ctx, p.supersedes, 'supersedes')
  if (supersedes && actor.authority !== 'decider')
    throw new ApiError('forbidden', `${actor.name} may not supersede a decision`)
  const at = now()
  const events: (() => void)[] = []
  const row = ctx.store.transaction(() => {
    const hash = contentHash(p.statement, status)
    const id = ctx.store.decisions.insert({
      title: p.title,
      statement: p.statement,
      rationale: p.rationale ?? '',
      status,
      fingerprint: hash,
      source_message_id: p.sourceMessageId ?? null,
      supersedes: supersedes?.id ?? null,
      created_by: actor.memberId,
      created_at: at,
    })
    ctx.store.decisions.insertRevision({
      decision_id: id,
      version: 1,
      title: p.title,
      statement: p.statement,
      rationale: p.rationale ?? '',
      status,
      content_hash: hash,
      fingerprint: hash,
      reason: 'created',
      actor_id: actor.memberId,
      editorial: 0,
      source_message_id: p.sourceMessageId ?? null,
      created_at: at,
    })
    ctx.store.log.appendEvent('decision.created', { decisionId: id, actorId: actor.memberId }, at)
    if (supersedes) {
      ctx.store.decisions.setSupersededBy(supersedes.id, id)
      const change = changeDecisionTx(
        ctx,
        supersedes.id,
        supersedes.version,
        { status: 'superseded' },
        {
          reason: `superseded by ${makeKey('decision', id)}`,
          editorial: false,
          actorId: actor.memberId,
          sourceMessageId: p.sourceMessageId ?? null,
        },
      )
      events.push(() =>
        emitDecisionChange(ctx, change, {
          editorial: false,
          reason: `superseded by ${makeKey('decision', id)}`,
          actorId: p.actorId ?? null,
        }),
      )
    }
    return ctx.store.decisions.get(id)!
  })
  const decision = toDecision(ctx.wsId, row)
  ctx.emit('decision.created', { workspaceId: ctx.wsId, decision })
  for (const e of events) e()
  return decision
}

export function updateDecision(ctx: Ctx, p: ParsedParams<'decisions.update'>): Result<'decisions.update'> {
  const actor = actorOf(ctx, p.actorId)
  const row = decisionRow(ctx, p.decisionId)
  if (actor.authority === 'observer')
    throw new ApiError('forbidden', `${actor.name} is an observer and may not change decisions`)
  if (actor.authority === 'proposer') {
    // A proposer's change is recorded as a proposal; nothing else moves until a decider accepts it.
    assertAtVersion(row, p.expectedVersion, 'proposal')
    const proposal = ctx.store.transaction(() => createProposalTx(ctx, row, actor.memberId, p))
    const dto = toProposal(ctx.wsId, proposal)
    ctx.emit('proposal.changed', { workspaceId: ctx.wsId, proposal: dto })
    return { decision: toDecision(ctx.wsId, row), impact: emptyImpact(ctx.wsId, row.id, row.version), proposal: dto }
  }
  const meta = {
    reason: p.reason ?? '',
    editorial: p.editorial ?? false,
    actorId: actor.memberId,
    sourceMessageId: p.sourceMessageId ?? null,
  }
  const change = ctx.store.transaction(() =>
    changeDecisionTx(
      ctx,
      row.id,
      p.expectedVersion,
      { title: p.title, statement: p.statement, rationale: p.rationale, status: p.status },
      meta,
    ),
  )
  emitDecisionChange(ctx, change, { editorial: meta.editorial, reason: meta.reason, actorId: p.actorId ?? null })
  return { decision: change.decision, impact: change.impact }
}

/** Thrown to roll a dry run back. */
class DryRun extends Error {}

/**
 * What an edit would do, in the edit's own shape (for a revert: the claims it would restore): the edit itself
 * (changeDecisionTx), run in a transaction that is rolled back, so the preview and the edit cannot disagree.
 * Without a statement or status it shows what any normative change would do (a content nothing is pinned to).
 */
export function previewImpact(ctx: Ctx, p: ParsedParams<'decisions.previewImpact'>): Impact {
  const row = decisionRow(ctx, p.decisionId)
  if (p.editorial) return emptyImpact(ctx.wsId, row.id, row.version + 1)
  const any = p.statement === undefined && p.status === undefined
  const fields = any ? { statement: `${row.statement}\u0000preview` } : { statement: p.statement, status: p.status }
  if ((fields.statement ?? row.statement) === row.statement && (p.status ?? row.status) === row.status)
    return emptyImpact(ctx.wsId, row.id, row.version + 1)
  let change: DecisionChange | undefined
  try {
    ctx.store.transaction(() => {
      change = changeDecisionTx(ctx, row.id, row.version, fields, {
        reason: '',
        editorial: false,
        actorId: null,
        sourceMessageId: null,
      })
      throw new DryRun('rolled back')
    })
  } catch (err) {
    if (!(err instanceof DryRun)) throw err
  }
  const { followUpTaskIds: _, ...impact } = change!.impact
  return { ...impact, ...mergedTasksOf(ctx.wsId, change!.merged, workspaceSettings(ctx).followUps) }
}

export function getDecision(ctx: Ctx, decisionId: string): Decision {
  return toDecision(ctx.wsId, decisionRow(ctx, decisionId))
}

export function listDecisions(ctx: Ctx): Decision[] {
  return ctx.store.decisions.list().map((r) => toDecision(ctx.wsId, r))
}
