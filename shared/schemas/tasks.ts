/** A task and everything about its branch: links, base, merge queue, updates, merge preview, readiness, pull request, plan, attempts. */
import type { DiffFile } from './diffs'
import type {
  LinkState,
  MergeMode,
  MergeStrategy,
  PlanState,
  ReportKind,
  TaskFlag,
  TaskStatus,
  UpdateMode,
  Verdict,
} from './inputs'
import type { z } from 'zod'

/** One page of tasks.page, ordered by key number. `total`: rows matching the filters. */
export interface TaskPage {
  items: Task[]
  nextCursor: string | null
  total: number
}

export interface TaskLink {
  decisionId: string
  decisionKey: string
  pinnedVersion: number
  currentVersion: number
  state: z.infer<typeof LinkState>
}

export interface ArtifactRef {
  commit: string | null
  digest: string | null
}

export interface Task {
  id: string
  workspaceId: string
  key: string
  title: string
  spec: string
  acceptanceCriteria: string
  status: z.infer<typeof TaskStatus>
  assigneeId: string | null
  flag: z.infer<typeof TaskFlag> | null
  /** A flag, or a link pinned to content its decision no longer has (as the core decides it: store/task-rules-sql taskFlaggedSql, also tasks.page `flagged`). */
  flagged: boolean
  artifact: ArtifactRef | null
  links: TaskLink[]
  blockedBy: string[]
  requiredReports: z.infer<typeof ReportKind>[]
  /** Whether it can be accepted (why not), or delivered on a report: the core's answer, not re-derived by a client. */
  readiness: TaskReadiness
  /** The task's git branch (worktree workspaces, once started); null otherwise. */
  branch: string | null
  /** The branch's head commit as last seen (full SHA); null without a branch. */
  head: string | null
  /** The merge that landed the task in the base branch. */
  merged: { commit: string; at: string } | null
  /** Its commit against the base branch's head as last checked (open tasks with a tree); null when not checked. */
  base?: TaskBase | null
  /** Its place in the workspace's merge queue (verified merges): what the queued merge waits for; null when not queued. */
  mergeQueue?: TaskMergeQueue | null
  /** Comments on its diff sent to the assignee and not resolved by a later delivery yet. */
  openComments?: number
  /** Plan first: the assignee's first turn writes a plan in a read-only tree; code only once a plan is approved. */
  planFirst?: boolean
  /** The latest plan submitted for the task (plan first), null before one is. */
  plan?: TaskPlan | null
  /** Its pull request on the forge (tasks.openPullRequest), as the last refresh found it; null when none was opened. */
  pullRequest?: TaskPullRequest | null
  /** The task this one is an attempt at (tasks.tryWith); null for a task of its own. */
  attemptOf?: string | null
  /** How many attempts were made at it (tasks.tryWith); 0 when none. */
  attempts?: number
  /** The attempt picked as its delivery (tasks.pickAttempt); null before a pick. */
  pickedAttempt?: string | null
  version: number
  /** Set while archived (tasks.archive): left out of lists and pages. */
  archivedAt?: string | null
  createdAt: string
  updatedAt: string
}

/**
 * A task's commit against the base branch (issue 30), as Concord last checked it when the base moved: what the card
 * says ("behind main by 2 · overlaps T-1 in src/search.js · conflicts").
 */
export interface TaskBase {
  branch: string
  /** The base branch's head it was checked against. */
  head: string
  /** The commit checked: the delivered one, or the tree's head while in progress. */
  commit: string
  behind: number
  /** Files both sides changed, by the merged task that changed them on the base side (null: other commits). */
  overlaps: { taskId: string | null; key: string | null; files: string[] }[]
  /** Paths a trial merge conflicts in; null when it merges cleanly (or git cannot tell: mergeTreeKnown false). */
  conflicts: string[] | null
  /** Merging it lands exactly the tree its commit has (what its reports checked). */
  landsAsChecked: boolean
  mergeTreeKnown: boolean
  checkedAt: string
}

/**
 * A merge the user asked for that waits its turn (workspace setting merges: verified): the task's branch is brought
 * up to date with the base, verified again there, and merged by Concord once passing evidence is on the tree that
 * would land. One queue per workspace, in order: only the first is updated and verified at a time.
 */
export interface TaskMergeQueue {
  /** 1 for the merge that goes next. */
  position: number
  /**
   * waiting: behind another queued merge; updating: its branch is being brought up to date; verifying: waiting for
   * the reports on the updated head; conflict: the update conflicts, its assignee resolves it; blocked: the merge
   * itself was refused (your checkout: see message) and is tried again at the next change.
   */
  state: 'waiting' | 'updating' | 'verifying' | 'conflict' | 'blocked'
  /** What it waits for, in words ("waiting for Tess's test on abc1234"). */
  message: string
  /** The reports it waits for: who is asked, of which kind, on which commit. */
  waitingFor: { memberId: string | null; memberName: string | null; kind: string; commit: string | null }[]
  /** Who asked for the merge (null: the human). */
  queuedBy: string | null
  queuedAt: string
  strategy: z.infer<typeof MergeStrategy>
}

/** tasks.updateBranch: what bringing the base branch into a task's tree did. */
export interface BranchUpdate {
  /**
   * updated: the tree's head moved (a delivered or accepted task is delivered again on it and needs verifying there);
   * current: the tree already had the base's head; conflict: the tree is left in the merge, for its assignee's turn.
   */
  outcome: 'updated' | 'current' | 'conflict'
  mode: UpdateMode
  baseBranch: string
  baseHead: string
  /** The tree's head before and after. */
  from: string
  head: string
  /** The conflicting files, each with the base's commits and the task's that changed it (outcome conflict). */
  conflicts: { file: string; base: string[]; task: string[] }[]
  /** The automatic turn queued for the assignee (its step), or null. */
  turn: { memberId: string; memberName: string; stepId: string | null } | null
  task: Task
}

/** tasks.mergePreview: what merging a task would do, before the user clicks Merge (issue 30). */
export interface MergePreview {
  taskId: string
  key: string
  baseBranch: string
  baseHead: string
  /** The commit that would be merged: the accepted (delivered) one, or the tree's head. */
  commit: string
  /** The files merging it changes on the base branch. */
  files: string[]
  /**
   * Why it cannot land as it is now (merge_conflict, base_moved), or null when it can. With merges: verified,
   * tasks.merge then queues it (see queued) rather than refusing; with as-accepted, base_moved does not stop it.
   */
  blocked: { code: 'merge_conflict' | 'base_moved'; message: string } | null
  /** The workspace's merges setting in force, and what Merge does with it now. */
  merges: MergeMode
  /** Merge would queue it (verified: update, re-verify, then land) rather than land it at once. */
  queued: boolean
  /** Every other open task with a tree, and what the move does to it. */
  others: {
    taskId: string
    key: string
    status: Task['status']
    overlaps: string[]
    /** overlaps: files in common; reverify: delivered or accepted, its tree must be verified again; behind: in progress, nothing in common. */
    effect: 'overlaps' | 'reverify' | 'behind'
    text: string
  }[]
  /** One sentence: "Merging T-1 moves main: T-2 overlaps (src/search.js) and will need updating and verifying again; …". */
  text: string
}

export interface AcceptanceReason {
  /**
   * base_moved: the base branch moved since the evidence was made, and merging would land a tree no report checked;
   * merge_conflict: a trial merge with the base branch conflicts (never ready, never merged).
   */
  code: 'evidence_stale' | 'evidence_missing' | 'base_moved' | 'merge_conflict'
  reportId: string | null
  message: string
  /** The required report kind this reason is about. */
  reportKind?: z.infer<typeof ReportKind>
  /** The next step that resolves it: a prefilled message to the member who can. */
  action?: AcceptanceAction | null
}

/** "Ask Tester to re-verify T-2 on a1b2c3d": who to ask (null: no member fits, pick one), and what to send. */
export interface AcceptanceAction {
  memberId: string | null
  memberName: string | null
  taskId: string
  /** The commit to check (the task's delivered one), when there is one. */
  commit: string | null
  label: string
  text: string
}

/**
 * Task.readiness: what the core's accept check says of the task now (harness/tasks/readiness.ts), and the delivery on
 * offer. Read with the task; every change of it comes as a task.changed event or a refetch of the task.
 */
export interface TaskReadiness {
  /** Delivered, and every required report is in, passing, on the delivered artifact and current: tasks.accept accepts it. */
  ready: boolean
  /** While delivered: every reason tasks.accept refuses it for now, as its refusal gives them; empty otherwise. */
  reasons: AcceptanceReason[]
  /** In progress: a passing implementation report by the assignee on a commit, still current: deliver on it. */
  deliverOn: { commit: string; reportId: string; reportKey: string } | null
}

/** A task's pull request on GitHub (issue 33): where it is, and its CI and review comments as last refreshed. */
export interface TaskPullRequest {
  remote: string
  owner: string
  repo: string
  number: number
  url: string
  headSha: string
  state: 'open' | 'closed' | 'merged'
  /** The head commit's combined status and check runs, as one word: any failure fails it. */
  ci: 'pending' | 'success' | 'failure' | 'none'
  checks: { name: string; state: 'pending' | 'success' | 'failure'; url: string | null }[]
  reviewComments: { id: number; author: string; body: string; path: string | null; line: number | null; url: string }[]
  updatedAt: string
}

/**
 * A plan for a plan-first task (issue 33): written by the assignee in a read-only tree, submitted (plans.submit,
 * the submit_plan tool), then approved (coding starts), sent back with a comment (it plans again) or rejected.
 */
export interface TaskPlan {
  id: string
  taskId: string
  /** 1 for the task's first plan, 2 for the one after a request for changes, … */
  n: number
  body: string
  state: z.infer<typeof PlanState>
  /** The member who submitted it (null: submitted by the user). */
  authorId: string | null
  submittedAt: string
  /** The user's comment with a request for changes or a rejection. */
  comment: string | null
  decidedAt: string | null
  decidedBy: string | null
  /** A rejection's move of the task: back to to-do or cancelled. */
  rejectedTo: 'todo' | 'cancelled' | null
}

/** One attempt at a task as the compare view lays it out (tasks.attempts): what it changed, proved and cost. */
export interface TaskAttempt {
  task: Task
  member: { id: string; name: string; role: string; model: string | null } | null
  /** Files changed on its branch against the base it started from, with their +/- lines (empty before a commit). */
  files: DiffFile[]
  additions: number
  deletions: number
  reports: {
    id: string
    key: string
    kind: z.infer<typeof ReportKind>
    verdict: z.infer<typeof Verdict>
    claims: number
    summary: string
  }[]
  /** Tokens its turns spent, as recorded per step; null when no step recorded any. */
  tokens: { input: number; output: number } | null
  /** From its first step's start to its last step's end; null before any step. */
  durationMs: number | null
  /** Its tree is there (removed once another attempt was picked). */
  hasTree: boolean
  picked: boolean
}

export interface TaskAttempts {
  taskId: string
  pickedId: string | null
  attempts: TaskAttempt[]
}
