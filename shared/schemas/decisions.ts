/** A decision, its revisions, proposals, and the impact of one edit on tasks and reports. */
import type { DecisionStatus, FollowUpMode, ProposalState, TaskFlag, TaskStatus } from './inputs'
import type { z } from 'zod'

export interface Decision {
  id: string
  workspaceId: string
  key: string
  title: string
  statement: string
  rationale: string
  status: z.infer<typeof DecisionStatus>
  version: number
  fingerprint: string
  sourceMessageId: string | null
  supersedes: string | null
  supersededBy: string | null
  createdBy: string | null
  createdAt: string
  updatedAt: string
}

export interface Revision {
  decisionId: string
  version: number
  title: string
  statement: string
  rationale: string
  status: z.infer<typeof DecisionStatus>
  fingerprint: string
  reason: string
  actorId: string | null
  editorial: boolean
  sourceMessageId: string | null
  createdAt: string
  /** The accepted proposal this revision applied, if any (actorId is then who accepted it). */
  proposalId: string | null
  /** Its author: a member id, or null for the human (meaningful only when proposalId is set). */
  proposedBy: string | null
  /** The member whose session holds sourceMessageId (filled by decisions.history). */
  sourceMemberId?: string | null
}

export interface ImpactTask {
  taskId: string
  key: string
  status: z.infer<typeof TaskStatus>
  flag: z.infer<typeof TaskFlag>
  assigneeId: string | null
  /** True when the edit revoked this task's acceptance (accepted → delivered). */
  acceptanceRevoked: boolean
}

export interface ImpactReport {
  reportId: string
  key: string
  taskId: string
  authorId: string | null
  staleClaimIds: string[]
  /** Claims this edit made valid again (a revert, or any edit back to content they were pinned to). */
  restoredClaimIds: string[]
  /** The report's validity as the core read it (for the edit's answer and event: right after the edit). */
  validity: 'valid' | 'stale'
}

/** The whole impact of one edit in numbers (the lists in Impact may be cut; these never are). */
export interface ImpactCounts {
  tasks: number
  needsAdjustment: number
  needsReverification: number
  acceptanceRevoked: number
  reports: number
  staleClaims: number
  restoredClaims: number
}

/** How many tasks and reports an Impact lists at most; the rest come from decisions.impact, paged. */
export const IMPACT_SUMMARY_LIMIT = 50

/**
 * What one edit did, compact: counts of everything, and the first IMPACT_SUMMARY_LIMIT tasks and reports
 * (by key). `truncated` says more exist (or a list was cut to keep the event small): page them with
 * decisions.impact {decisionId, version}. The same object is the edit's answer and its event's payload.
 */
export interface Impact {
  decisionId: string
  /** The version the edit produced (for an edit that produced none, a proposal: the current one). */
  version: number
  /** False when the edit did not change the normative fingerprint (editorial, title-only): nothing flagged. */
  normative: boolean
  truncated: boolean
  counts: ImpactCounts
  tasks: ImpactTask[]
  reports: ImpactReport[]
  notifiedMemberIds: string[]
  /**
   * Merged tasks linked to the decision: they stay merged (outside counts and tasks); each gets a follow-up task,
   * created by the edit or, with the workspace setting `followUps: offer`, offered (tasks.followUp creates it).
   */
  mergedTasks?: { taskId: string; key: string; text: string; followUp: FollowUpMode }[]
  /** The follow-up tasks the edit created for them (an applied edit only). */
  followUpTaskIds?: string[]
  /**
   * Follow-ups the edit made obsolete: the decision is back to the content their merged task was merged on. With
   * `followUps: create` one nobody started is cancelled by the edit (`cancelled`); the others are offered for
   * cancellation (tasks.setStatus cancelled).
   */
  obsoleteFollowUps?: {
    taskId: string
    key: string
    mergedTaskId: string
    mergedKey: string
    cancelled: boolean
    text: string
  }[]
}

/** One page of an edit's whole impact (decisions.impact): tasks and reports each in key order. */
export interface ImpactPage {
  tasks: ImpactTask[]
  reports: ImpactReport[]
  /** Pass it back for the next page; null after the last. */
  nextCursor: string | null
}

export interface Proposal {
  id: string
  key: string
  workspaceId: string
  decisionId: string
  authorId: string | null
  baseVersion: number
  title: string | null
  statement: string | null
  rationale: string | null
  status: z.infer<typeof DecisionStatus> | null
  reason: string
  state: z.infer<typeof ProposalState>
  decidedBy: string | null
  decidedAt: string | null
  decisionReason: string | null
  sourceMessageId: string | null
  createdAt: string
}
