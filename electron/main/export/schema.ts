/**
 * The full-fidelity JSON export, schema version 1. Everything inside refers to other entities by a
 * workspace-independent local id — `M-1` member, `D-3` decision, `P-2` proposal, `T-4` task,
 * `R-5` report, `C-6` claim, `N-7` notice — whose number is the row number in the workspace, so an
 * export restored by import and exported again is byte-identical apart from `exportedAt`.
 *
 * Derived fields (`state` of links, basis and claims, `validity` of reports, `hasKey` is never
 * written) are there for readers; import recomputes them from the fingerprints.
 */
import { z } from 'zod'
import { keyPrefix } from '../../../shared/keys'
import { RunnerSchema } from '../../../shared/runners'
import {
  Authority,
  ApprovalPolicy,
  DecisionStatus,
  McpServerName,
  PlanState,
  ProposalState,
  ProviderKind,
  ReportKind,
  TaskFlag,
  TaskStatus,
  Verdict,
} from '../../../shared/schemas'

export const SCHEMA_VERSION = 1
export const GENERATOR = 'Concord'

export const localPrefix = { member: 'M', ...keyPrefix, claim: 'C', notice: 'N', rule: 'A' } as const
export type LocalKind = keyof typeof localPrefix

export const localId = (kind: LocalKind, n: number) => `${localPrefix[kind]}-${n}`

const Ref = (kind: LocalKind) =>
  z
    .string()
    .regex(new RegExp(`^${localPrefix[kind]}-[1-9][0-9]{0,14}$`), `must be a ${kind} id like ${localPrefix[kind]}-1`)

const Time = z.string().min(1).max(64)
const Text = z.string().max(100_000)
const Fingerprint = z.string().min(1).max(128)
const Version = z.number().int().min(1)
const Artifact = z.strictObject({ commit: z.string().max(64).nullable(), digest: z.string().max(200).nullable() })

export const MemberV1 = z.strictObject({
  id: Ref('member'),
  name: z.string().min(1).max(100),
  role: z.string().min(1).max(100),
  authority: Authority,
  instructions: Text,
  provider: z
    .strictObject({ kind: ProviderKind, model: z.string().max(200), baseURL: z.string().max(2000).nullable() })
    .nullable(),
  approval: ApprovalPolicy,
  maxSteps: z.number().int().min(1),
  planningInterval: z.number().int().min(0),
  /** Added after the first exports: absent means off. */
  network: z.boolean().optional(),
  /** When the member was archived (absent: not archived). */
  archivedAt: Time.optional(),
  /** The repository's MCP servers (`.mcp.json`, by name) it does not get; added after the first exports: absent, none. */
  mcpOff: z.array(McpServerName).max(64).optional(),
  /** Where it runs (issue 36): this machine, an SSH host or a container; absent, the workspace's default runner. */
  runner: RunnerSchema.optional(),
  createdAt: Time,
  updatedAt: Time,
})

/** An approval rule: allow or deny a tool, a command prefix or a path glob, for a member or (memberId null) the team. */
export const ApprovalRuleV1 = z
  .strictObject({
    id: Ref('rule'),
    memberId: Ref('member').nullable(),
    effect: z.enum(['allow', 'deny']),
    tool: z.string().min(1).max(100).nullable(),
    commandPrefix: z.string().min(1).max(500).nullable(),
    pathGlob: z.string().min(1).max(500).nullable(),
    createdAt: Time,
  })
  .refine((r) => r.tool || r.commandPrefix || r.pathGlob, 'a rule names a tool, a command prefix or a path glob')

export const RevisionV1 = z.strictObject({
  version: Version,
  title: z.string().max(300),
  statement: Text,
  rationale: Text,
  status: DecisionStatus,
  contentHash: Fingerprint,
  fingerprint: Fingerprint,
  reason: Text,
  actorId: Ref('member').nullable(),
  editorial: z.boolean(),
  sourceMessageId: z.string().max(200).nullable(),
  createdAt: Time,
})

export const DecisionV1 = z.strictObject({
  id: Ref('decision'),
  title: z.string().max(300),
  statement: Text,
  rationale: Text,
  status: DecisionStatus,
  version: Version,
  fingerprint: Fingerprint,
  sourceMessageId: z.string().max(200).nullable(),
  supersedes: Ref('decision').nullable(),
  supersededBy: Ref('decision').nullable(),
  createdBy: Ref('member').nullable(),
  createdAt: Time,
  updatedAt: Time,
  revisions: z.array(RevisionV1).min(1),
})

export const ProposalV1 = z.strictObject({
  id: Ref('proposal'),
  decisionId: Ref('decision'),
  authorId: Ref('member').nullable(),
  baseVersion: Version,
  title: z.string().max(300).nullable(),
  statement: Text.nullable(),
  rationale: Text.nullable(),
  status: DecisionStatus.nullable(),
  reason: Text,
  state: ProposalState,
  decidedBy: Ref('member').nullable(),
  decidedAt: Time.nullable(),
  decisionReason: Text.nullable(),
  sourceMessageId: z.string().max(200).nullable(),
  createdAt: Time,
})

/** A plan of a plan-first task (issue 33), numbered per task, with where it stands. */
export const PlanV1 = z.strictObject({
  n: z.number().int().min(1),
  body: Text.min(1),
  state: PlanState,
  authorId: Ref('member').nullable(),
  submittedAt: Time,
  comment: Text.nullable(),
  decidedAt: Time.nullable(),
  decidedBy: Ref('member').nullable(),
  rejectedTo: z.enum(['todo', 'cancelled']).nullable(),
})

export const TaskV1 = z.strictObject({
  id: Ref('task'),
  title: z.string().max(300),
  spec: Text,
  acceptanceCriteria: Text,
  status: TaskStatus,
  assigneeId: Ref('member').nullable(),
  flag: TaskFlag.nullable(),
  artifact: Artifact.nullable(),
  requiredReports: z.array(ReportKind).max(3),
  version: Version,
  /** When the task was archived (absent: not archived). */
  archivedAt: Time.optional(),
  /** The task this one is an attempt at ("Try it with…"; absent: a task of its own). */
  attemptOf: Ref('task').optional(),
  /** The attempt picked as this task's delivery (absent: none picked). */
  pickedAttempt: Ref('task').optional(),
  createdAt: Time,
  updatedAt: Time,
  links: z.array(
    z.strictObject({
      decisionId: Ref('decision'),
      pinnedVersion: Version,
      pinnedFingerprint: Fingerprint,
      state: z.enum(['current', 'suspect']),
    }),
  ),
  blockedBy: z.array(Ref('task')),
  /** Plan first (absent: not plan first, and in exports made before plans existed). */
  planFirst: z.boolean().optional(),
  /** Every plan submitted for the task, oldest first (absent: none). */
  plans: z.array(PlanV1).optional(),
})

export const ReportV1 = z.strictObject({
  id: Ref('report'),
  taskId: Ref('task'),
  authorId: Ref('member').nullable(),
  kind: ReportKind,
  verdict: Verdict,
  summary: Text,
  artifact: Artifact,
  validity: z.enum(['valid', 'stale']),
  createdAt: Time,
  basis: z.array(
    z.strictObject({
      decisionId: Ref('decision'),
      version: Version,
      fingerprint: Fingerprint,
      state: z.enum(['current', 'suspect']),
    }),
  ),
  claims: z.array(
    z.strictObject({
      id: Ref('claim'),
      text: Text,
      decisions: z.array(z.strictObject({ decisionId: Ref('decision'), pinnedFingerprint: Fingerprint })),
      state: z.enum(['valid', 'stale']),
    }),
  ),
})

export const NoticeV1 = z.strictObject({
  id: Ref('notice'),
  memberId: Ref('member'),
  kind: z.literal('decision_changed'),
  decisionId: Ref('decision'),
  decisionVersion: Version,
  taskIds: z.array(Ref('task')),
  reportIds: z.array(Ref('report')),
  text: Text,
  createdAt: Time,
  deliveredAt: Time.nullable(),
})

export const ExportV1 = z
  .strictObject({
    /** Where the JSON Schema of this file is (`./concord-export.schema.json`, written beside it). Older exports have none. */
    $schema: z.string().max(2000).optional(),
    schemaVersion: z.literal(SCHEMA_VERSION),
    generator: z.literal(GENERATOR),
    exportedAt: Time,
    workspace: z.strictObject({ name: z.string().min(1).max(200), createdAt: Time }),
    members: z.array(MemberV1),
    decisions: z.array(DecisionV1),
    proposals: z.array(ProposalV1),
    tasks: z.array(TaskV1),
    reports: z.array(ReportV1),
    notices: z.array(NoticeV1),
    /** Approval rules of the members and the team; absent in exports made before rules existed. */
    approvalRules: z.array(ApprovalRuleV1).optional(),
    /** The coordination counters behind metrics.get, so the figures survive a restore. */
    counters: z.record(z.string().max(200), z.number().int()),
  })
  .meta({
    title: 'Concord export',
    description:
      'The full-fidelity export of one Concord workspace (schema version 1): members without keys, decisions with every revision, proposals, tasks, reports with claims, notices and counters. Entities refer to each other by local ids like D-3.',
  })

export type ExportDoc = z.infer<typeof ExportV1>
export type DecisionDoc = z.infer<typeof DecisionV1>
export type RevisionDoc = z.infer<typeof RevisionV1>
export type ReportDoc = z.infer<typeof ReportV1>
