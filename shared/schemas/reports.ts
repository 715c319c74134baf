/** A report, its claims and basis; notices sent to members; the workspace's figures and its events. */
import type { CostFigures } from './money'
import type { LinkState, ReportKind, Verdict } from './inputs'
import type { ArtifactRef } from './tasks'
import type { z } from 'zod'

/**
 * One page of reports.page, newest first. `staleTotal`: stale reports among those matching every filter but `stale`;
 * `attentionTotal`: those of them no newer report of the same task, kind and author supersedes (the badge).
 */
export interface ReportPage {
  items: Report[]
  nextCursor: string | null
  total: number
  staleTotal: number
  attentionTotal: number
}

export interface Claim {
  id: string
  text: string
  decisionIds: string[]
  state: 'valid' | 'stale'
  /** Whether this behaviour held (pass), failed, or held in part. */
  verdict: z.infer<typeof Verdict>
}

export interface BasisEntry {
  decisionId: string
  version: number
  state: z.infer<typeof LinkState>
}

export interface Report {
  id: string
  key: string
  workspaceId: string
  taskId: string
  authorId: string | null
  kind: z.infer<typeof ReportKind>
  verdict: z.infer<typeof Verdict>
  summary: string
  validity: 'valid' | 'stale'
  basis: BasisEntry[]
  artifact: ArtifactRef
  claims: Claim[]
  createdAt: string
  /** The newer report of the same task, kind and author that supersedes this one; null while it is the newest. */
  supersededBy: string | null
}

export interface Notice {
  id: string
  workspaceId: string
  memberId: string
  kind: 'decision_changed'
  decisionId: string
  decisionVersion: number
  taskIds: string[]
  reportIds: string[]
  text: string
  createdAt: string
  deliveredAt: string | null
}

/**
 * A notice as its event carries it: one edit can concern 10,000 reports of one author, so the event names the
 * first IMPACT_SUMMARY_LIMIT tasks and reports and counts the rest (`notices.list` has the whole notice).
 */
export interface NoticeSummary extends Omit<Notice, 'taskIds' | 'reportIds'> {
  taskIds: string[]
  reportIds: string[]
  taskCount: number
  reportCount: number
}

export interface Metrics {
  workspaceId: string
  decisionEdits: { normative: number; editorial: number }
  tasksFlagged: { requirements_updated: number; needs_adjustment: number; needs_reverification: number }
  acceptancesRevoked: number
  noticesSent: number
  acceptances: { accepted: number; refusedStale: number; refusedMissing: number }
  claims: { madeStale: number; keptValid: number }
  proposals: { created: number; accepted: number; rejected: number }
  /** Turns Concord started for flagged members and stale evidence: relays you did not have to make. */
  autoTurns?: number
  /** `unreported`: finished model replies whose provider reported no usage; their tokens are unknown, not 0. */
  tokens: {
    total: { input: number; output: number; unreported: number }
    perMember: { memberId: string; input: number; output: number; unreported: number }[]
    /** `key` and `title`: the task's, so the table names it without the task list loaded. */
    perTask: { taskId: string; key: string; title: string; input: number; output: number; unreported: number }[]
  }
  /** What the tokens cost (reported by agents, or priced from the workspace's table) and the budget. */
  cost: CostFigures
}

export interface HarnessEvent {
  id: number
  type: string
  payload: unknown
  createdAt: string
}

/**
 * A notice as sent: what it is about in keys, and the member's step that delivered it (null while pending). Compact:
 * one notice can concern thousands of reports, so a page carries the first few tasks and counts the rest.
 */
export interface SentNotice extends Omit<Notice, 'taskIds' | 'reportIds'> {
  decisionKey: string
  /** The first few tasks it concerns, ids and keys; `taskCount` counts them all. */
  taskIds: string[]
  taskKeys: string[]
  taskCount: number
  reportCount: number
  stepId: string | null
}

/** One page of notices.sent, newest first. `total`: every notice of the workspace (the figure). */
export interface SentNoticePage {
  items: SentNotice[]
  nextCursor: string | null
  total: number
}
