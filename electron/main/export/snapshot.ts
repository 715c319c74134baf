/**
 * Reads a whole workspace into the export document (schema v1) in one read transaction. Madr and
 * Markdown are rendered from this same document, so all three formats agree.
 *
 * Secrets are never read: members come from their rows, which hold no key; the secret store is not
 * touched here.
 */
import { parseKey } from '../../../shared/keys'
import { parseStoredRunner, type Runner } from '../../../shared/runners'
import type { Workspace } from '../../../shared/schemas'
import { TransferRepo } from '../store/transfer-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import type { DecisionRow, RevisionRow } from '../store/decisions-repo'
import type { PlanRow } from '../store/plans-repo'
import { GENERATOR, localId, SCHEMA_VERSION, type DecisionDoc, type ExportDoc, type LocalKind } from './schema'

const ref = (kind: LocalKind, n: number | null) => (n === null ? null : localId(kind, n))

/**
 * A provider base URL can carry credentials (`https://user:key@host`); those are dropped, the rest
 * is kept.
 */
export function withoutCredentials(url: string | null): string | null {
  if (url === null) return null
  try {
    const u = new URL(url)
    if (!u.username && !u.password) return url
    u.username = ''
    u.password = ''
    return u.toString()
  } catch {
    // Not parseable: keep nothing that could hide credentials.
    return url.replace(/\/\/[^/@]*@/, '//')
  }
}

/** One decision as the export says it, with its revisions (oldest first). */
function decisionDoc(d: DecisionRow, history: RevisionRow[]): DecisionDoc {
  return {
    id: localId('decision', d.id),
    title: d.title,
    statement: d.statement,
    rationale: d.rationale,
    status: d.status,
    version: d.version,
    fingerprint: d.fingerprint,
    sourceMessageId: d.source_message_id,
    supersedes: ref('decision', d.supersedes),
    supersededBy: ref('decision', d.superseded_by),
    createdBy: ref('member', d.created_by),
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    revisions: history.map((r) => ({
      version: r.version,
      title: r.title,
      statement: r.statement,
      rationale: r.rationale,
      status: r.status,
      contentHash: r.content_hash,
      fingerprint: r.fingerprint,
      reason: r.reason,
      actorId: ref('member', r.actor_id),
      editorial: r.editorial === 1,
      sourceMessageId: r.source_message_id,
      createdAt: r.created_at,
    })),
  }
}

/**
 * At most `limit` decisions after row `afterId`, with their revisions, in two reads: the export download's slices.
 * `last` is the row id to continue after, null once there are no more.
 */
export function readDecisionPage(
  store: WorkspaceStore,
  afterId: number,
  limit: number,
): { decisions: DecisionDoc[]; last: number | null } {
  const rows = store.decisions.page(afterId, limit)
  if (!rows.length) return { decisions: [], last: null }
  const first = rows[0]!.id
  const last = rows[rows.length - 1]!.id
  const revisions = new Map<number, RevisionRow[]>()
  for (const r of store.decisions.historyBetween(first, last)) {
    const list = revisions.get(r.decision_id)
    if (list) list.push(r)
    else revisions.set(r.decision_id, [r])
  }
  return { decisions: rows.map((d) => decisionDoc(d, revisions.get(d.id) ?? [])), last }
}

/** The title of decision `id` (`D-n`), or undefined when there is none. */
export function readDecisionTitle(store: WorkspaceStore, id: string): string | undefined {
  const key = parseKey(id)
  return key?.kind === 'decision' ? store.decisions.get(key.n)?.title : undefined
}

/** How many decisions the workspace has, counted RANGE ids at a time, `between` called after each range. */
export async function countDecisions(store: WorkspaceStore, between: () => Promise<void>): Promise<number> {
  const RANGE = 10_000
  const max = store.decisions.maxId()
  let n = 0
  for (let after = 0; after < max; after += RANGE) {
    n += store.decisions.countBetween(after, Math.min(after + RANGE, max))
    await between()
  }
  return n
}

/** The ids (D-n) and titles of at most `limit` decisions after row `afterId`; `last` as readDecisionPage's. */
export function readDecisionHeads(
  store: WorkspaceStore,
  afterId: number,
  limit: number,
): { heads: { id: string; title: string }[]; last: number | null } {
  const rows = store.decisions.heads(afterId, limit)
  return {
    heads: rows.map((d) => ({ id: localId('decision', d.id), title: d.title })),
    last: rows.length ? rows[rows.length - 1]!.id : null,
  }
}

export function readSnapshot(store: WorkspaceStore, workspace: Workspace, exportedAt: string): ExportDoc {
  return new TransferRepo(store.db).snapshot(() => {
    const decisions = store.decisions.list().map((d) => decisionDoc(d, store.decisions.history(d.id)))
    const rest = readAllButDecisions(store)
    return {
      schemaVersion: SCHEMA_VERSION,
      generator: GENERATOR,
      exportedAt,
      workspace: { name: workspace.name, createdAt: workspace.createdAt },
      members: rest.members,
      decisions,
      proposals: rest.proposals,
      tasks: rest.tasks,
      reports: rest.reports,
      notices: rest.notices,
      approvalRules: rest.approvalRules,
      counters: rest.counters,
    } satisfies ExportDoc
  })
}

/**
 * The export document without its decisions (`decisions` is empty): what an ADR file says about the people, proposals,
 * tasks, reports and notices around its decision. The export download reads the decisions in pages beside it.
 */
export function readContext(store: WorkspaceStore, workspace: Workspace, exportedAt: string): ExportDoc {
  return new TransferRepo(store.db).snapshot(() => {
    const { members, ...rest } = readAllButDecisions(store)
    // The keys in readSnapshot's order: renderJsonPieces lays the decisions into this document's text.
    return {
      schemaVersion: SCHEMA_VERSION,
      generator: GENERATOR,
      exportedAt,
      workspace: { name: workspace.name, createdAt: workspace.createdAt },
      members,
      decisions: [],
      ...rest,
    }
  })
}

function readAllButDecisions(
  store: WorkspaceStore,
): Omit<ExportDoc, 'schemaVersion' | 'generator' | 'exportedAt' | 'workspace' | 'decisions'> {
  const transfer = new TransferRepo(store.db)
  // Archived members and tasks are kept, with their archivedAt.
  const members = readMembers(store)
  const proposals = readProposals(store)
  const tasks = readTasks(store)
  const reports = readReports(store)
  const notices = readNotices(store, transfer)
  const approvalRules = readApprovalRules(store)
  const counters = Object.fromEntries([...store.log.counters()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

  return { members, proposals, tasks, reports, notices, approvalRules, counters }
}

/** The repository's MCP servers a member turned off, when it turned any off (older exports have none). */
function mcpOffOf(row: { mcp_off: string }): { mcpOff?: string[] } {
  const off = JSON.parse(row.mcp_off) as string[]
  return off.length ? { mcpOff: off } : {}
}

/** The runner a member named for itself, when it named one (absent: the workspace's default). */
function runnerOf(row: { runner: string | null }): { runner?: Runner } {
  const runner = parseStoredRunner(row.runner)
  return runner ? { runner } : {}
}

function readMembers(store: WorkspaceStore): ExportDoc['members'] {
  return store.members.list(true).map((m) => ({
    id: localId('member', m.id),
    name: m.name,
    role: m.role,
    authority: m.authority,
    instructions: m.instructions,
    provider: m.provider_kind
      ? { kind: m.provider_kind, model: m.provider_model ?? '', baseURL: withoutCredentials(m.provider_base_url) }
      : null,
    approval: m.approval,
    maxSteps: m.max_steps,
    planningInterval: m.planning_interval,
    network: m.network === 1,
    ...(m.archived_at ? { archivedAt: m.archived_at } : {}),
    ...mcpOffOf(m),
    ...runnerOf(m),
    createdAt: m.created_at,
    updatedAt: m.updated_at,
  }))
}

function readProposals(store: WorkspaceStore): ExportDoc['proposals'] {
  return store.proposals.list().map((p) => ({
    id: localId('proposal', p.id),
    decisionId: localId('decision', p.decision_id),
    authorId: ref('member', p.author_id),
    baseVersion: p.base_version,
    title: p.title,
    statement: p.statement,
    rationale: p.rationale,
    status: p.status,
    reason: p.reason,
    state: p.state,
    decidedBy: ref('member', p.decided_by),
    decidedAt: p.decided_at,
    decisionReason: p.decision_reason,
    sourceMessageId: p.source_message_id,
    createdAt: p.created_at,
  }))
}

/** Each task's plans, by task row id, as the export says them (a task with none has no `plans`). */
function readPlans(store: WorkspaceStore): (taskId: number) => Pick<ExportDoc['tasks'][number], 'plans'> {
  const planRows = new Map<number, PlanRow[]>()
  for (const p of store.plans.all()) planRows.set(p.task_id, [...(planRows.get(p.task_id) ?? []), p])
  return (taskId: number) => {
    const rows = planRows.get(taskId)
    if (!rows) return {}
    return {
      plans: rows.map((p) => ({
        n: p.n,
        body: p.body,
        state: p.state,
        authorId: ref('member', p.author_id),
        submittedAt: p.submitted_at,
        comment: p.comment,
        decidedAt: p.decided_at,
        decidedBy: ref('member', p.decided_by),
        rejectedTo: p.rejected_to,
      })),
    }
  }
}

function readTasks(store: WorkspaceStore): ExportDoc['tasks'] {
  const plansOf = readPlans(store)
  return store.tasks.list(undefined, true).map((t) => ({
    id: localId('task', t.id),
    title: t.title,
    spec: t.spec,
    acceptanceCriteria: t.acceptance_criteria,
    status: t.status,
    assigneeId: ref('member', t.assignee_id),
    flag: t.flag,
    artifact: t.artifact_commit || t.artifact_digest ? { commit: t.artifact_commit, digest: t.artifact_digest } : null,
    requiredReports: JSON.parse(t.required_reports) as ExportDoc['tasks'][number]['requiredReports'],
    version: t.version,
    ...(t.archived_at ? { archivedAt: t.archived_at } : {}),
    ...(t.attempt_of ? { attemptOf: localId('task', t.attempt_of) } : {}),
    ...(t.picked_attempt ? { pickedAttempt: localId('task', t.picked_attempt) } : {}),
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    links: store.tasks.links(t.id).map((l) => ({
      decisionId: localId('decision', l.decision_id),
      pinnedVersion: l.pinned_version,
      pinnedFingerprint: l.pinned_fingerprint,
      state: l.pinned_fingerprint === l.current_fingerprint ? ('current' as const) : ('suspect' as const),
    })),
    blockedBy: store.tasks.blockers(t.id).map((b) => localId('task', b)),
    ...(t.plan_first === 1 ? { planFirst: true } : {}),
    ...plansOf(t.id),
  }))
}

function readReports(store: WorkspaceStore): ExportDoc['reports'] {
  const reportRows = store.reports.list()
  // Validity is the store's rule (reports-repo staleReport), not re-derived from the claims here.
  const staleReports = store.reports.staleAmong(reportRows.map((r) => r.id))
  return reportRows.map((r) => {
    const links = store.reports.claimLinks(r.id)
    const basis = store.reports.basis(r.id).map((b) => ({
      decisionId: localId('decision', b.decision_id),
      version: b.version,
      fingerprint: b.fingerprint,
      state: b.fingerprint === b.current_fingerprint ? ('current' as const) : ('suspect' as const),
    }))
    const claims = store.reports.claims(r.id).map((c) => {
      const mine = links.filter((l) => l.claim_id === c.id)
      return {
        id: localId('claim', c.id),
        text: c.text,
        decisions: mine.map((l) => ({
          decisionId: localId('decision', l.decision_id),
          pinnedFingerprint: l.pinned_fingerprint,
        })),
        state: mine.some((l) => l.pinned_fingerprint !== l.current_fingerprint)
          ? ('stale' as const)
          : ('valid' as const),
      }
    })
    return {
      id: localId('report', r.id),
      taskId: localId('task', r.task_id),
      authorId: ref('member', r.author_id),
      kind: r.kind,
      verdict: r.verdict,
      summary: r.summary,
      artifact: { commit: r.artifact_commit, digest: r.artifact_digest },
      validity: staleReports.has(r.id) ? ('stale' as const) : ('valid' as const),
      createdAt: r.created_at,
      basis,
      claims,
    }
  })
}

function readNotices(store: WorkspaceStore, transfer: TransferRepo): ExportDoc['notices'] {
  return transfer.notices().map((n) => ({
    id: localId('notice', n.id),
    memberId: localId('member', n.member_id),
    kind: n.kind,
    decisionId: localId('decision', n.decision_id),
    decisionVersion: n.decision_version,
    taskIds: (JSON.parse(n.task_ids) as number[]).map((x) => localId('task', x)),
    reportIds: store.log.reportIds(n).map((x) => localId('report', x)),
    text: n.text,
    createdAt: n.created_at,
    deliveredAt: n.delivered_at,
  }))
}

function readApprovalRules(store: WorkspaceStore): ExportDoc['approvalRules'] {
  return store.approvalRules.list().map((r) => ({
    id: localId('rule', r.id),
    memberId: r.member_id === null ? null : localId('member', r.member_id),
    effect: r.effect,
    tool: r.tool,
    commandPrefix: r.command_prefix,
    pathGlob: r.path_glob,
    createdAt: r.created_at,
  }))
}
