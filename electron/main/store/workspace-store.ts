import { openDatabase, type Db, type OpenOptions } from './connection'
import { BranchesRepo } from './branches-repo'
import { DecisionsRepo } from './decisions-repo'
import { LogRepo } from './log-repo'
import { MembersRepo } from './members-repo'
import { ProposalsRepo } from './proposals-repo'
import { ReportPinsRepo } from './report-pins-repo'
import { ReportsRepo } from './reports-repo'
import { SettingsRepo } from './settings-repo'
import { StepsRepo } from './steps-repo'
import { StepImagesRepo } from './step-images-repo'
import { TasksRepo } from './tasks-repo'
import { FollowUpsRepo } from './follow-ups-repo'
import { UsageRepo } from './usage-repo'
import { CostRepo } from './cost-repo'
import { ArchiveRepo } from './archive-repo'
import { RecordSearchRepo, SearchRepo } from './search-repo'
import { RetryRepo } from './retry-repo'
import { ApprovalRulesRepo } from './approval-rules-repo'
import { BaseRepo } from './base-repo'
import { MergeQueueRepo } from './merge-queue-repo'
import { DiffCommentsRepo } from './diff-comments-repo'
import { AttemptsRepo } from './attempts-repo'
import { PullRequestsRepo } from './pull-requests-repo'
import { PlansRepo } from './plans-repo'
import { TurnUndoRepo } from './turn-undo-repo'

/** One workspace's harness file and its repositories. */
export class WorkspaceStore {
  readonly members: MembersRepo
  readonly decisions: DecisionsRepo
  readonly proposals: ProposalsRepo
  readonly tasks: TasksRepo
  readonly followUps: FollowUpsRepo
  readonly reports: ReportsRepo
  readonly reportPins: ReportPinsRepo
  readonly log: LogRepo
  readonly steps: StepsRepo
  readonly stepImages: StepImagesRepo
  readonly settings: SettingsRepo
  readonly branches: BranchesRepo
  readonly usage: UsageRepo
  readonly cost: CostRepo
  readonly archive: ArchiveRepo
  readonly search: SearchRepo
  readonly recordSearch: RecordSearchRepo
  readonly retry: RetryRepo
  readonly approvalRules: ApprovalRulesRepo
  readonly base: BaseRepo
  readonly mergeQueue: MergeQueueRepo
  readonly diffComments: DiffCommentsRepo
  readonly pullRequests: PullRequestsRepo
  readonly plans: PlansRepo
  readonly attempts: AttemptsRepo
  readonly turnUndo: TurnUndoRepo

  private constructor(readonly db: Db) {
    this.members = new MembersRepo(db)
    this.decisions = new DecisionsRepo(db)
    this.proposals = new ProposalsRepo(db)
    this.tasks = new TasksRepo(db)
    this.followUps = new FollowUpsRepo(db)
    this.reports = new ReportsRepo(db)
    this.reportPins = new ReportPinsRepo(db)
    this.log = new LogRepo(db)
    this.steps = new StepsRepo(db)
    this.stepImages = new StepImagesRepo(db)
    this.settings = new SettingsRepo(db)
    this.branches = new BranchesRepo(db)
    this.usage = new UsageRepo(db)
    this.cost = new CostRepo(db)
    this.archive = new ArchiveRepo(db)
    this.search = new SearchRepo(db)
    this.recordSearch = new RecordSearchRepo(db)
    this.retry = new RetryRepo(db)
    this.approvalRules = new ApprovalRulesRepo(db)
    this.base = new BaseRepo(db)
    this.mergeQueue = new MergeQueueRepo(db)
    this.diffComments = new DiffCommentsRepo(db)
    this.pullRequests = new PullRequestsRepo(db)
    this.plans = new PlansRepo(db)
    this.attempts = new AttemptsRepo(db)
    this.turnUndo = new TurnUndoRepo(db)
  }

  static open(file: string, options?: OpenOptions): WorkspaceStore {
    return new WorkspaceStore(openDatabase(file, options))
  }

  /** Runs fn in one IMMEDIATE transaction. fn must be synchronous: no await inside. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate()
  }

  close(): void {
    this.db.close()
  }
}
