/**
 * The store as code that only reads sees it (as Signal-Desktop's ReadableDB beside WritableDB): every repository with
 * its reading methods only. Pages, the mappers and the brief take a ReadableStore, so none of them can write; the
 * WorkspaceStore (every method, and transactions) is one, and is what the use cases that write are given. A new reading
 * method is listed here to be seen by readers; a writing one never is (test/unit/readable-store.test.ts).
 */
import type { ApprovalRulesRepo } from './approval-rules-repo'
import type { ArchiveRepo } from './archive-repo'
import type { AttemptsRepo } from './attempts-repo'
import type { BaseRepo } from './base-repo'
import type { BranchesRepo } from './branches-repo'
import type { DecisionsRepo } from './decisions-repo'
import type { DiffCommentsRepo } from './diff-comments-repo'
import type { FollowUpsRepo } from './follow-ups-repo'
import type { LogRepo } from './log-repo'
import type { MembersRepo } from './members-repo'
import type { MergeQueueRepo } from './merge-queue-repo'
import type { PlansRepo } from './plans-repo'
import type { ProposalsRepo } from './proposals-repo'
import type { PullRequestsRepo } from './pull-requests-repo'
import type { ReportPinsRepo } from './report-pins-repo'
import type { ReportsRepo } from './reports-repo'
import type { RetryRepo } from './retry-repo'
import type { RecordSearchRepo, SearchRepo } from './search-repo'
import type { SettingsRepo } from './settings-repo'
import type { StepsRepo } from './steps-repo'
import type { TasksRepo } from './tasks-repo'
import type { TurnUndoRepo } from './turn-undo-repo'
import type { UsageRepo } from './usage-repo'

export interface ReadableStore {
  readonly members: Pick<MembersRepo, 'get' | 'list'>
  readonly decisions: Pick<
    DecisionsRepo,
    | 'get'
    | 'list'
    | 'history'
    | 'page'
    | 'countBetween'
    | 'maxId'
    | 'heads'
    | 'historyBetween'
    | 'revision'
    | 'impactTasks'
    | 'impact'
    | 'fingerprintOfContent'
  >
  readonly proposals: Pick<ProposalsRepo, 'get' | 'acceptedFor' | 'list'>
  readonly tasks: Pick<
    TasksRepo,
    | 'get'
    | 'list'
    | 'inProgress'
    | 'links'
    | 'linksByTask'
    | 'blockers'
    | 'openBlockers'
    | 'flaggedAmong'
    | 'getMany'
    | 'related'
    | 'page'
  >
  readonly followUps: Pick<FollowUpsRepo, 'implementers'>
  readonly reports: Pick<
    ReportsRepo,
    | 'get'
    | 'list'
    | 'evidence'
    | 'basis'
    | 'claims'
    | 'claimLinks'
    | 'staleAmong'
    | 'lastId'
    | 'heads'
    | 'getMany'
    | 'related'
    | 'page'
    | 'counts'
  >
  readonly reportPins: Pick<
    ReportPinsRepo,
    | 'pinTotals'
    | 'pinAuthors'
    | 'pinOverlap'
    | 'authorPins'
    | 'authorPinCount'
    | 'pinnedClaimCounts'
    | 'pinnedClaims'
    | 'pinnedBasis'
    | 'pinnedClaimIds'
  >
  readonly log: Pick<
    LogRepo,
    'reportIds' | 'reportCount' | 'notice' | 'notices' | 'pendingCount' | 'sentPage' | 'events' | 'counters'
  >
  readonly steps: Pick<
    StepsRepo,
    | 'pins'
    | 'get'
    | 'lastOfTurn'
    | 'page'
    | 'pageOfTask'
    | 'recent'
    | 'lastId'
    | 'processes'
    | 'since'
    | 'nextQueued'
    | 'queuedCount'
    | 'openOfTurn'
    | 'open'
    | 'latestPlan'
    | 'openQuestion'
  >
  readonly settings: Pick<SettingsRepo, 'get'>
  readonly branches: Pick<BranchesRepo, 'bases' | 'get' | 'list' | 'byBranch'>
  readonly usage: Pick<UsageRepo, 'perMember' | 'perTask'>
  readonly archive: Pick<ArchiveRepo, 'archivedMembers' | 'archivedTasks' | 'memberWork'>
  readonly search: Pick<SearchRepo, 'search'>
  readonly recordSearch: Pick<
    RecordSearchRepo,
    'decisions' | 'decisionHistory' | 'tasks' | 'reportSummaries' | 'reportClaims'
  >
  readonly retry: Pick<RetryRepo, 'lastTurnStart'>
  readonly approvalRules: Pick<ApprovalRulesRepo, 'list' | 'forMember' | 'get'>
  readonly base: Pick<BaseRepo, 'get' | 'among' | 'seen'>
  readonly mergeQueue: Pick<MergeQueueRepo, 'get' | 'list' | 'among' | 'carriedAmong'>
  readonly diffComments: Pick<DiffCommentsRepo, 'get' | 'ofTask' | 'openCounts'>
  readonly pullRequests: Pick<PullRequestsRepo, 'get' | 'among'>
  readonly plans: Pick<PlansRepo, 'get' | 'ofTask' | 'latest' | 'latestAmong' | 'all'>
  readonly attempts: Pick<AttemptsRepo, 'of' | 'counts' | 'work' | 'workingOn'>
  readonly turnUndo: Pick<TurnUndoRepo, 'laterInForce' | 'isUndone' | 'commitsAmong' | 'toldInLatest'>
}
