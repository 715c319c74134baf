/** Rows → API entities. Ids become routable strings; derived states (link, claim, report validity) are computed here. */
import type * as s from '../../../shared/schemas'
import type { DecisionRow, RevisionRow } from '../store/decisions-repo'
import type { NoticeRow } from '../store/log-repo'
import type { MemberRow } from '../store/members-repo'
import type { ProposalRow } from '../store/proposals-repo'
import type { ReportRow } from '../store/reports-repo'
import type { TaskRow } from '../store/tasks-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import { makeId, makeKey } from './ids'

const idOrNull = (ws: string, kind: Parameters<typeof makeId>[1], n: number | null) => (n === null ? null : makeId(ws, kind, n))

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
          isolatedHome: r.agent_isolated_home === 1,
          interruptOnAdjustment: r.agent_interrupt === 1,
          turnTimeoutSeconds: r.agent_turn_timeout_s,
          hasKey,
        }
      : r.provider_kind
        ? { kind: r.provider_kind, model: r.provider_model ?? '', baseURL: r.provider_base_url, hasKey }
        : null,
    approval: r.approval,
    maxSteps: r.max_steps,
    planningInterval: r.planning_interval,
    network: r.network === 1,
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

function branchOf(store: WorkspaceStore, taskId: number): Pick<s.Task, 'branch' | 'head' | 'merged'> {
  const b = store.branches.get(taskId)
  if (!b) return { branch: null, head: null, merged: null }
  return { branch: b.branch, head: b.head, merged: b.merged_commit && b.merged_at ? { commit: b.merged_commit, at: b.merged_at } : null }
}

export function toTask(ws: string, store: WorkspaceStore, r: TaskRow): s.Task {
  return {
    id: makeId(ws, 'task', r.id),
    workspaceId: ws,
    key: makeKey('task', r.id),
    title: r.title,
    spec: r.spec,
    acceptanceCriteria: r.acceptance_criteria,
    status: r.status,
    assigneeId: idOrNull(ws, 'member', r.assignee_id),
    flag: r.flag,
    artifact: r.artifact_commit || r.artifact_digest ? { commit: r.artifact_commit, digest: r.artifact_digest } : null,
    links: store.tasks.links(r.id).map((l) => ({
      decisionId: makeId(ws, 'decision', l.decision_id),
      decisionKey: makeKey('decision', l.decision_id),
      pinnedVersion: l.pinned_version,
      currentVersion: l.current_version,
      state: l.pinned_fingerprint === l.current_fingerprint ? 'current' : 'suspect',
    })),
    blockedBy: store.tasks.blockers(r.id).map((b) => makeId(ws, 'task', b)),
    requiredReports: JSON.parse(r.required_reports) as s.Task['requiredReports'],
    ...branchOf(store, r.id),
    version: r.version,
    archivedAt: r.archived_at ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

export function toReport(ws: string, store: WorkspaceStore, r: ReportRow): s.Report {
  const links = store.reports.claimLinks(r.id)
  const byClaim = new Map<number, { decisionIds: string[]; stale: boolean }>()
  for (const l of links) {
    const entry = byClaim.get(l.claim_id) ?? { decisionIds: [], stale: false }
    entry.decisionIds.push(makeId(ws, 'decision', l.decision_id))
    if (l.pinned_fingerprint !== l.current_fingerprint) entry.stale = true
    byClaim.set(l.claim_id, entry)
  }
  const claims: s.Claim[] = store.reports.claims(r.id).map((c) => {
    const entry = byClaim.get(c.id)
    return { id: makeId(ws, 'claim', c.id), text: c.text, decisionIds: entry?.decisionIds ?? [], state: entry?.stale ? 'stale' : 'valid' }
  })
  const basis: s.BasisEntry[] = store.reports.basis(r.id).map((b) => ({
    decisionId: makeId(ws, 'decision', b.decision_id),
    version: b.version,
    state: b.fingerprint === b.current_fingerprint ? 'current' : 'suspect',
  }))
  const stale = claims.some((c) => c.state === 'stale') || basis.some((b) => b.state === 'suspect')
  return {
    id: makeId(ws, 'report', r.id),
    key: makeKey('report', r.id),
    workspaceId: ws,
    taskId: makeId(ws, 'task', r.task_id),
    authorId: idOrNull(ws, 'member', r.author_id),
    kind: r.kind,
    verdict: r.verdict,
    summary: r.summary,
    validity: stale ? 'stale' : 'valid',
    basis,
    artifact: { commit: r.artifact_commit, digest: r.artifact_digest },
    claims,
    createdAt: r.created_at,
  }
}

export function toNotice(ws: string, r: NoticeRow): s.Notice {
  return {
    id: makeId(ws, 'notice', r.id),
    workspaceId: ws,
    memberId: makeId(ws, 'member', r.member_id),
    kind: r.kind,
    decisionId: makeId(ws, 'decision', r.decision_id),
    decisionVersion: r.decision_version,
    taskIds: (JSON.parse(r.task_ids) as number[]).map((n) => makeId(ws, 'task', n)),
    reportIds: (JSON.parse(r.report_ids) as number[]).map((n) => makeId(ws, 'report', n)),
    text: r.text,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  }
}
