/**
 * The one place a decision changes (compare-and-set, revision, propagation) and the emission after the
 * commit. decisions.ts and proposals.ts both build on it, so neither imports the other's internals.
 */
import { ApiError } from '../../../../shared/errors'
import type { Decision, Impact, NoticeSummary } from '../../../../shared/schemas'
import type { DecisionRow, DecisionStatusValue } from '../../store/decisions-repo'
import type { Ctx } from '../context'
import { contentHash } from './fingerprint'
import { makeKey, now } from '../ids'
import { emptyImpact } from './impact'
import { toDecision, toNoticeSummary, toTask } from '../mappers'
import { parseId } from '../ids'
import { applyPropagation } from './propagation'
import { assertAtVersion, versionConflict } from './version-check'

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
  notices: NoticeSummary[]
  /** The merged tasks the change left behind with no follow-up open (each got, or is offered, one). */
  merged: number[]
  /** Follow-up tasks the change cancelled as obsolete or carried to the new version. */
  changedTasks: number[]
}

export function changeDecisionTx(
  ctx: Ctx,
  id: number,
  expectedVersion: number,
  fields: ChangeFields,
  meta: ChangeMeta,
): DecisionChange {
  const { decisions } = ctx.store
  const row = decisions.get(id)
  if (!row) throw new ApiError('not_found', `decision ${makeKey('decision', id)} does not exist`)
  assertAtVersion(row, expectedVersion, 'edit')
  const next = nextContent(row, fields)
  const hash = contentHash(next.statement, next.status)
  // An editorial fix keeps the normative fingerprint; content seen before gets its old fingerprint back (revert).
  const fingerprint = meta.editorial ? row.fingerprint : (decisions.fingerprintOfContent(id, hash) ?? hash)
  const at = now()
  if (!decisions.updateHead(id, expectedVersion, { ...next, fingerprint, updated_at: at }))
    throw versionConflict(id, decisions.get(id)?.version ?? expectedVersion, expectedVersion, 'edit')
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
    ? applyPropagation(
        ctx,
        { id, version, title: next.title, statement: next.statement, rationale: next.rationale },
        row.fingerprint,
        fingerprint,
        meta.reason,
        meta.actorId,
        at,
      )
    : { impact: emptyImpact(ctx.wsId, id, version), noticeIds: [], merged: [], changedTasks: [] }
  const impact = propagated.impact
  logChange(ctx, { id, version, normative, actorId: meta.actorId, impact, at })
  const notices = propagated.noticeIds.map((n) => toNoticeSummary(ctx.wsId, ctx.store, ctx.store.log.notice(n)!))
  return {
    decision: toDecision(ctx.wsId, decisions.get(id)!),
    impact,
    notices,
    merged: propagated.merged,
    changedTasks: propagated.changedTasks,
  }
}

/** The decision's content after the edit; an edit that changes nothing is refused. */
function nextContent(row: DecisionRow, fields: ChangeFields): Required<ChangeFields> {
  const next = {
    title: fields.title ?? row.title,
    statement: fields.statement ?? row.statement,
    rationale: fields.rationale ?? row.rationale,
    status: fields.status ?? row.status,
  }
  if (
    next.title === row.title &&
    next.statement === row.statement &&
    next.rationale === row.rationale &&
    next.status === row.status
  ) {
    throw new ApiError('invalid_params', 'the edit changes nothing: give a new title, statement, rationale or status')
  }
  return next
}

/** The log keeps the counts and the first tasks; the whole impact is in decisions.impact (the edit's record and the pins). */
function logChange(
  ctx: Ctx,
  c: { id: number; version: number; normative: boolean; actorId: number | null; impact: Impact; at: string },
): void {
  const { impact } = c
  ctx.store.log.appendEvent(
    'decision.changed',
    {
      decisionId: c.id,
      version: c.version,
      normative: c.normative,
      actorId: c.actorId,
      tasks: impact.tasks.map((t) => [t.key, t.flag]),
      counts: impact.counts,
      reports: impact.counts.reports,
      staleClaims: impact.counts.staleClaims,
      notified: impact.notifiedMemberIds,
    },
    c.at,
  )
}

/** After the commit: one event with the whole impact, then each queued notice. */
export function emitDecisionChange(
  ctx: Ctx,
  change: DecisionChange,
  meta: { editorial: boolean; reason: string; actorId: string | null },
): void {
  ctx.emit('decision.changed', { workspaceId: ctx.wsId, decision: change.decision, impact: change.impact, ...meta })
  const followUps = (change.impact.followUpTaskIds ?? []).map((id) => parseId(id, 'task', 'taskId').n)
  for (const n of [...followUps, ...change.changedTasks]) {
    const row = ctx.store.tasks.get(n)
    if (row) ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, row) })
  }
  for (const notice of change.notices) ctx.emit('notice.created', { workspaceId: ctx.wsId, notice })
}
