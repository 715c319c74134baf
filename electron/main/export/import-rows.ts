/**
 * An export's entities as the rows of a new workspace file, every row keeping its original number: inserted one
 * entity per step (import.ts runs the steps in short transactions).
 */
import { NO_AGENT } from '../store/members-repo'
import type { TransferRepo } from '../store/transfer-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import type { ExportDoc } from './schema'

/** Row number of a local id (`D-3` → 3); ids were checked by the schema. */
const n = (id: string) => Number(id.slice(id.indexOf('-') + 1))
const nOrNull = (id: string | null) => (id === null ? null : n(id))

type Steps = Generator<void, void, void>
type Member = ExportDoc['members'][number]
type Decision = ExportDoc['decisions'][number]
type Proposal = ExportDoc['proposals'][number]
type Task = ExportDoc['tasks'][number]
type Report = ExportDoc['reports'][number]
type Notice = ExportDoc['notices'][number]

/** Inserts the whole document, one entity per step (restoreSliced runs the steps in short transactions). */
export function* insertAll(store: WorkspaceStore, transfer: TransferRepo, doc: ExportDoc): Steps {
  yield* eachStep(doc.members, (m) => transfer.insertMember(memberRow(m)))
  insertApprovalRules(store, doc)
  yield
  yield* eachStep(doc.decisions, (d) => insertDecision(store, transfer, d))
  yield* eachStep(doc.proposals, (p) => transfer.insertProposal(proposalRow(p)))
  yield* eachStep(doc.tasks, (t) => transfer.insertTask(taskRow(t)))
  // Links and blockers after every task exists (a task may be blocked by a later one).
  yield* eachStep(doc.tasks, (t) => insertTaskLinks(store, transfer, t))
  yield* eachStep(doc.reports, (r) => insertReport(store, transfer, r))
  yield* eachStep(doc.notices, (x) => transfer.insertNotice(noticeRow(x)))
  for (const [name, value] of Object.entries(doc.counters)) transfer.setCounter(name, value)
}

/** One step per entity. */
function* eachStep<T>(entities: T[], insert: (entity: T) => void): Steps {
  for (const e of entities) {
    insert(e)
    yield
  }
}

function memberRow(m: Member): Parameters<TransferRepo['insertMember']>[0] {
  return {
    id: n(m.id),
    name: m.name,
    role: m.role,
    authority: m.authority,
    instructions: m.instructions,
    provider_kind: m.provider?.kind ?? null,
    provider_model: m.provider?.model ?? null,
    provider_base_url: m.provider?.baseURL ?? null,
    archived_at: m.archivedAt ?? null,
    approval: m.approval,
    max_steps: m.maxSteps,
    planning_interval: m.planningInterval,
    network: m.network ? 1 : 0,
    // An agent's command and settings are machine-specific: not in the export, set again after import.
    ...NO_AGENT,
    // The repository's MCP servers it had turned off stay off (they are named by the repository, not the machine).
    mcp_off: JSON.stringify([...new Set(m.mcpOff ?? [])]),
    // Its runner is kept for when its agent is set again (a member that is no agent runs on this machine meanwhile).
    runner: m.runner ? JSON.stringify(m.runner) : null,
    acp_session: null,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }
}

function insertApprovalRules(store: WorkspaceStore, doc: ExportDoc): void {
  for (const r of doc.approvalRules ?? []) {
    store.approvalRules.insertWithId({
      id: n(r.id),
      member_id: nOrNull(r.memberId),
      effect: r.effect,
      tool: r.tool,
      command_prefix: r.commandPrefix,
      path_glob: r.pathGlob,
      created_at: r.createdAt,
    })
  }
}

/** A decision and its revisions. */
function insertDecision(store: WorkspaceStore, transfer: TransferRepo, d: Decision): void {
  const id = n(d.id)
  transfer.insertDecision({
    id,
    title: d.title,
    statement: d.statement,
    rationale: d.rationale,
    status: d.status,
    version: d.version,
    fingerprint: d.fingerprint,
    source_message_id: d.sourceMessageId,
    supersedes: nOrNull(d.supersedes),
    superseded_by: nOrNull(d.supersededBy),
    created_by: nOrNull(d.createdBy),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  })
  for (const r of d.revisions) {
    store.decisions.insertRevision({
      decision_id: id,
      version: r.version,
      title: r.title,
      statement: r.statement,
      rationale: r.rationale,
      status: r.status,
      content_hash: r.contentHash,
      fingerprint: r.fingerprint,
      reason: r.reason,
      actor_id: nOrNull(r.actorId),
      editorial: r.editorial ? 1 : 0,
      source_message_id: r.sourceMessageId,
      created_at: r.createdAt,
    })
  }
}

function proposalRow(p: Proposal): Parameters<TransferRepo['insertProposal']>[0] {
  return {
    id: n(p.id),
    decision_id: n(p.decisionId),
    author_id: nOrNull(p.authorId),
    base_version: p.baseVersion,
    title: p.title,
    statement: p.statement,
    rationale: p.rationale,
    status: p.status,
    reason: p.reason,
    state: p.state,
    decided_by: nOrNull(p.decidedBy),
    decided_at: p.decidedAt,
    decision_reason: p.decisionReason,
    source_message_id: p.sourceMessageId,
    created_at: p.createdAt,
  }
}

function taskRow(t: Task): Parameters<TransferRepo['insertTask']>[0] {
  return {
    id: n(t.id),
    title: t.title,
    spec: t.spec,
    acceptance_criteria: t.acceptanceCriteria,
    status: t.status,
    archived_at: t.archivedAt ?? null,
    assignee_id: nOrNull(t.assigneeId),
    flag: t.flag,
    artifact_commit: t.artifact?.commit ?? null,
    artifact_digest: t.artifact?.digest ?? null,
    required_reports: JSON.stringify(t.requiredReports),
    version: t.version,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }
}

/** A task's links, blockers, plans and attempt: what refers to other tasks. */
function insertTaskLinks(store: WorkspaceStore, transfer: TransferRepo, t: Task): void {
  store.tasks.replaceLinks(
    n(t.id),
    t.links.map((l) => ({ decisionId: n(l.decisionId), version: l.pinnedVersion, fingerprint: l.pinnedFingerprint })),
  )
  store.tasks.replaceBlockers(n(t.id), t.blockedBy.map(n))
  if (t.planFirst) store.plans.setPlanFirst(n(t.id), true)
  for (const p of t.plans ?? [])
    store.plans.restore({
      task_id: n(t.id),
      n: p.n,
      body: p.body,
      author_id: nOrNull(p.authorId),
      state: p.state,
      submitted_at: p.submittedAt,
      comment: p.comment,
      decided_at: p.decidedAt,
      decided_by: nOrNull(p.decidedBy),
      rejected_to: p.rejectedTo,
    })
  if (t.attemptOf || t.pickedAttempt)
    transfer.setAttempt(n(t.id), t.attemptOf ? n(t.attemptOf) : null, t.pickedAttempt ? n(t.pickedAttempt) : null)
}

/** A report, its basis and its claims. */
function insertReport(store: WorkspaceStore, transfer: TransferRepo, r: Report): void {
  const id = n(r.id)
  transfer.insertReport({
    id,
    task_id: n(r.taskId),
    author_id: nOrNull(r.authorId),
    kind: r.kind,
    verdict: r.verdict,
    summary: r.summary,
    artifact_commit: r.artifact.commit,
    artifact_digest: r.artifact.digest,
    claim_count: r.claims.length,
    created_at: r.createdAt,
  })
  for (const b of r.basis) store.reports.insertBasis(id, n(b.decisionId), b.version, b.fingerprint)
  r.claims.forEach((c, ordinal) => {
    transfer.insertClaim(n(c.id), id, ordinal, c.text)
    for (const x of c.decisions) store.reports.insertClaimLink(n(c.id), id, n(x.decisionId), x.pinnedFingerprint)
  })
}

function noticeRow(x: Notice): Parameters<TransferRepo['insertNotice']>[0] {
  return {
    id: n(x.id),
    member_id: n(x.memberId),
    kind: x.kind,
    decision_id: n(x.decisionId),
    decision_version: x.decisionVersion,
    task_ids: JSON.stringify(x.taskIds.map(n)),
    report_ids: JSON.stringify(x.reportIds.map(n)),
    text: x.text,
    created_at: x.createdAt,
    delivered_at: x.deliveredAt,
  }
}
