/** Rows → API entities for members, decisions, revisions, proposals and plans. Ids become routable strings. */
import { parseStoredRunner } from '../../../shared/runners'
import type * as s from '../../../shared/schemas'
import type { DecisionRow, RevisionRow } from '../store/decisions-repo'
import type { MemberRow } from '../store/members-repo'
import type { PlanRow } from '../store/plans-repo'
import type { ProposalRow } from '../store/proposals-repo'
import { makeId, makeKey } from './ids'

export const idOrNull = (ws: string, kind: Parameters<typeof makeId>[1], n: number | null) =>
  n === null ? null : makeId(ws, kind, n)

export function toMember(ws: string, r: MemberRow, hasKey: boolean): s.Member {
  return {
    id: makeId(ws, 'member', r.id),
    workspaceId: ws,
    name: r.name,
    role: r.role,
    authority: r.authority,
    instructions: r.instructions,
    provider: r.agent
      ? {
          kind: 'acp',
          model: r.agent,
          baseURL: null,
          agent: r.agent,
          command: r.agent_command,
          args: JSON.parse(r.agent_args) as string[],
          env: JSON.parse(r.agent_env) as Record<string, string>,
          keyVariable: r.agent_key_variable,
          isolatedHome: r.agent_isolated_home === 1,
          interruptOnAdjustment: r.agent_interrupt === 1,
          turnTimeoutSeconds: r.agent_turn_timeout_s,
          hasKey,
        }
      : r.provider_kind
        ? {
            kind: r.provider_kind,
            model: r.provider_model ?? '',
            baseURL: r.provider_base_url,
            interruptOnAdjustment: r.agent_interrupt === 1,
            hasKey,
          }
        : null,
    approval: r.approval,
    maxSteps: r.max_steps,
    planningInterval: r.planning_interval,
    network: r.network === 1,
    mcpOff: JSON.parse(r.mcp_off) as string[],
    runner: parseStoredRunner(r.runner),
    archivedAt: r.archived_at ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

export function toDecision(ws: string, r: DecisionRow): s.Decision {
  return {
    id: makeId(ws, 'decision', r.id),
    workspaceId: ws,
    key: makeKey('decision', r.id),
    title: r.title,
    statement: r.statement,
    rationale: r.rationale,
    status: r.status,
    version: r.version,
    fingerprint: r.fingerprint,
    sourceMessageId: r.source_message_id,
    supersedes: idOrNull(ws, 'decision', r.supersedes),
    supersededBy: idOrNull(ws, 'decision', r.superseded_by),
    createdBy: idOrNull(ws, 'member', r.created_by),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

export function toRevision(ws: string, r: RevisionRow, proposal?: ProposalRow): s.Revision {
  return {
    decisionId: makeId(ws, 'decision', r.decision_id),
    version: r.version,
    title: r.title,
    statement: r.statement,
    rationale: r.rationale,
    status: r.status,
    fingerprint: r.fingerprint,
    reason: r.reason,
    actorId: idOrNull(ws, 'member', r.actor_id),
    editorial: r.editorial === 1,
    sourceMessageId: r.source_message_id,
    createdAt: r.created_at,
    proposalId: proposal ? makeId(ws, 'proposal', proposal.id) : null,
    proposedBy: proposal ? idOrNull(ws, 'member', proposal.author_id) : null,
  }
}

export function toProposal(ws: string, r: ProposalRow): s.Proposal {
  return {
    id: makeId(ws, 'proposal', r.id),
    key: makeKey('proposal', r.id),
    workspaceId: ws,
    decisionId: makeId(ws, 'decision', r.decision_id),
    authorId: idOrNull(ws, 'member', r.author_id),
    baseVersion: r.base_version,
    title: r.title,
    statement: r.statement,
    rationale: r.rationale,
    status: r.status,
    reason: r.reason,
    state: r.state,
    decidedBy: idOrNull(ws, 'member', r.decided_by),
    decidedAt: r.decided_at,
    decisionReason: r.decision_reason,
    sourceMessageId: r.source_message_id,
    createdAt: r.created_at,
  }
}

/** Pushes onto the list kept under `key` (rows come grouped by their owner). */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

export function toPlan(ws: string, p: PlanRow): s.TaskPlan {
  return {
    id: makeId(ws, 'plan', p.id),
    taskId: makeId(ws, 'task', p.task_id),
    n: p.n,
    body: p.body,
    state: p.state,
    authorId: idOrNull(ws, 'member', p.author_id),
    submittedAt: p.submitted_at,
    comment: p.comment,
    decidedAt: p.decided_at,
    decidedBy: idOrNull(ws, 'member', p.decided_by),
    rejectedTo: p.rejected_to,
  }
}
