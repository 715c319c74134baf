import type { ParsedParams, Result } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { Decision, Impact, Notice } from '../../../shared/schemas'
import type { DecisionRow, DecisionStatusValue } from '../store/decisions-repo'
import { actorOf, rowOf, type Ctx } from './context'
import { contentHash } from './fingerprint'
import { makeKey, now } from './ids'
import { toDecision, toNotice, toProposal, toRevision } from './mappers'
import { applyPropagation, emptyImpact, previewPropagation } from './propagation'
import { createProposalTx } from './proposals'

export function decisionRow(ctx: Ctx, decisionId: string, field = 'decisionId'): DecisionRow {
  const n = rowOf(ctx, 'decision', decisionId, field)
  const row = ctx.store.decisions.get(n)
  if (!row) throw new ApiError('not_found', `${field}: decision ${decisionId} does not exist`)
  return row
}

export function createDecision(ctx: Ctx, p: ParsedParams<'decisions.create'>): Decision {
  const actor = actorOf(ctx, p.actorId)
  if (actor.authority === 'observer') throw new ApiError('forbidden', `${actor.name} is an observer and may not record decisions`)
  // A proposer's decision starts as a proposal for a decider to accept.
  const status: DecisionStatusValue = actor.authority === 'proposer' ? 'proposed' : (p.status ?? 'accepted')
  const supersedes = p.supersedes === undefined ? null : decisionRow(ctx, p.supersedes, 'supersedes')
  if (supersedes && actor.authority !== 'decider') throw new ApiError('forbidden', `${actor.name} may not supersede a decision`)
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
      events.push(() => emitDecisionChange(ctx, change, { editorial: false, reason: `superseded by ${makeKey('decision', id)}`, actorId: p.actorId ?? null }))
    }
    return ctx.store.decisions.get(id)!
  })
  const decision = toDecision(ctx.wsId, row)
  ctx.emit('decision.created', { workspaceId: ctx.wsId, decision })
  for (const e of events) e()
  return decision
}

export interface ChangeMeta {
  reason: string
  editorial: boolean
  actorId: number | null
  sourceMessageId: string | null
}

export interface ChangeFields {
  title?: string
  statement?: string
  rationale?: string
  status?: DecisionStatusValue
}

/**
 * The one place a decision changes: compare-and-set on the version, a new immutable revision, and —
 * when the normative fingerprint moves — propagation to exactly its dependents. Call inside a transaction.
 */
export interface DecisionChange {
  decision: Decision
  impact: Impact
  /** The notices this change queued (emitted after the commit). */
  notices: Notice[]
}

export function changeDecisionTx(ctx: Ctx, id: number, expectedVersion: number, fields: ChangeFields, meta: ChangeMeta): DecisionChange {
  const { decisions } = ctx.store
  const row = decisions.get(id)
  if (!row) throw new ApiError('not_found', `decision ${makeKey('decision', id)} does not exist`)
  if (row.version !== expectedVersion) {
    throw new ApiError('version_conflict', `${makeKey('decision', id)} is at v${row.version}, but this edit was made against v${expectedVersion}; reload it and apply your change again`, {
      currentVersion: row.version,
    })
  }
  const next = {
    title: fields.title ?? row.title,
    statement: fields.statement ?? row.statement,
    rationale: fields.rationale ?? row.rationale,
    status: fields.status ?? row.status,
  }
  if (next.title === row.title && next.statement === row.statement && next.rationale === row.rationale && next.status === row.status) {
    throw new ApiError('invalid_params', 'the edit changes nothing: give a new title, statement, rationale or status')
  }
  const hash = contentHash(next.statement, next.status)
  // An editorial fix keeps the normative fingerprint; content seen before gets its old fingerprint back (revert).
  const fingerprint = meta.editorial ? row.fingerprint : (decisions.fingerprintOfContent(id, hash) ?? hash)
  const at = now()
  if (!decisions.updateHead(id, expectedVersion, { ...next, fingerprint, updated_at: at })) {
    throw new ApiError('version_conflict', `${makeKey('decision', id)} changed while this edit was applied; reload it and try again`)
  }
  const version = row.version + 1
  decisions.insertRevision({
    decision_id: id,
    version,
    ...next,
    content_hash: hash,
    fingerprint,
    reason: meta.reason,
    actor_id: meta.actorId,
    editorial: meta.editorial ? 1 : 0,
    source_message_id: meta.sourceMessageId,
    created_at: at,
  })
  const normative = fingerprint !== row.fingerprint
  ctx.store.log.bump(normative ? 'decision_edits.normative' : 'decision_edits.editorial')
  const propagated = normative
    ? applyPropagation(ctx, { id, version, title: next.title, statement: next.statement }, row.fingerprint, fingerprint, meta.reason, meta.actorId, at)
    : { impact: emptyImpact(ctx.wsId, id), noticeIds: [] }
  const impact = propagated.impact
  ctx.store.log.appendEvent(
    'decision.changed',
    {
      decisionId: id,
      version,
      normative,
      actorId: meta.actorId,
      tasks: impact.tasks.map((t) => [t.key, t.flag]),
      // The log keeps the counts; the claim-level detail is derivable from the claim links.
      reports: impact.reports.length,
      staleClaims: impact.reports.reduce((n, r) => n + r.staleClaimIds.length, 0),
      notified: impact.notifiedMemberIds,
    },
    at,
  )
  const notices = propagated.noticeIds.map((n) => toNotice(ctx.wsId, ctx.store.log.notice(n)!))
  return { decision: toDecision(ctx.wsId, decisions.get(id)!), impact, notices }
}

/** After the commit: one event with the whole impact, then each queued notice. */
export function emitDecisionChange(ctx: Ctx, change: DecisionChange, meta: { editorial: boolean; reason: string; actorId: string | null }): void {
  ctx.emit('decision.changed', { workspaceId: ctx.wsId, decision: change.decision, impact: change.impact, ...meta })
  for (const notice of change.notices) ctx.emit('notice.created', { workspaceId: ctx.wsId, notice })
}

export function updateDecision(ctx: Ctx, p: ParsedParams<'decisions.update'>): Result<'decisions.update'> {
  const actor = actorOf(ctx, p.actorId)
  const row = decisionRow(ctx, p.decisionId)
  if (actor.authority === 'observer') throw new ApiError('forbidden', `${actor.name} is an observer and may not change decisions`)
  if (actor.authority === 'proposer') {
    // A proposer's change is recorded as a proposal; nothing else moves until a decider accepts it.
    if (row.version !== p.expectedVersion) {
      throw new ApiError('version_conflict', `${makeKey('decision', row.id)} is at v${row.version}, not v${p.expectedVersion}`, { currentVersion: row.version })
    }
    const proposal = ctx.store.transaction(() => createProposalTx(ctx, row, actor.memberId, p))
    const dto = toProposal(ctx.wsId, proposal)
    ctx.emit('proposal.changed', { workspaceId: ctx.wsId, proposal: dto })
    return { decision: toDecision(ctx.wsId, row), impact: emptyImpact(ctx.wsId, row.id), proposal: dto }
  }
  const meta = { reason: p.reason ?? '', editorial: p.editorial ?? false, actorId: actor.memberId, sourceMessageId: p.sourceMessageId ?? null }
  const change = ctx.store.transaction(() => changeDecisionTx(ctx, row.id, p.expectedVersion, { title: p.title, statement: p.statement, rationale: p.rationale, status: p.status }, meta))
  emitDecisionChange(ctx, change, { editorial: meta.editorial, reason: meta.reason, actorId: p.actorId ?? null })
  return { decision: change.decision, impact: change.impact }
}

export function previewImpact(ctx: Ctx, p: ParsedParams<'decisions.previewImpact'>): Impact {
  const row = decisionRow(ctx, p.decisionId)
  if (p.editorial) return emptyImpact(ctx.wsId, row.id)
  let to = '\u0000any-new-content'
  if (p.statement !== undefined || p.status !== undefined) {
    const hash = contentHash(p.statement ?? row.statement, p.status ?? row.status)
    to = ctx.store.decisions.fingerprintOfContent(row.id, hash) ?? hash
    if (to === row.fingerprint) return emptyImpact(ctx.wsId, row.id)
  }
  return previewPropagation(ctx, row.id, row.fingerprint, to, null)
}

export function getDecision(ctx: Ctx, decisionId: string): Decision {
  return toDecision(ctx.wsId, decisionRow(ctx, decisionId))
}

export function listDecisions(ctx: Ctx): Decision[] {
  return ctx.store.decisions.list().map((r) => toDecision(ctx.wsId, r))
}

export function decisionHistory(ctx: Ctx, decisionId: string) {
  const row = decisionRow(ctx, decisionId)
  return ctx.store.decisions.history(row.id).map((r) => toRevision(ctx.wsId, r))
}
