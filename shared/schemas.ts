/**
 * Zod schemas for every value that crosses a transport. Param objects are strict: an unknown
 * field is refused, so a typo (`expectedVerison`) is an error, not a silent no-op.
 */
import { z } from 'zod'
import { agentKinds } from './agent-kinds'
import { decisionStatuses, providerKinds, verdicts, type StepKindValue, type StepStatusValue } from './enums'
import { reportKinds } from './report-kinds'
import type { SessionErrorCode } from './session-errors'

export const Id = z.string().min(1).max(64)

export const Authority = z.enum(['observer', 'proposer', 'decider'])
/**
 * When a member asks the human before a tool call: `ask` every write and command; `sandboxed` only what leaves the
 * OS sandbox (network, outside its tree, hooks, decisions, cancelling; everything when there is no sandbox); `auto` never.
 */
export const ApprovalPolicy = z.enum(['ask', 'sandboxed', 'auto'])
export type ApprovalPolicyName = z.infer<typeof ApprovalPolicy>
/** What an approval rule matches: a tool, a command prefix (`npm test`), a path glob (`src/**`); at least one. */
export const ApprovalRuleInput = z
  .strictObject({
    effect: z.enum(['allow', 'deny']),
    tool: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9_.:-]+$/, 'is not a tool name')
      .nullable()
      .optional(),
    commandPrefix: z.string().trim().min(1).max(500).nullable().optional(),
    pathGlob: z.string().trim().min(1).max(500).nullable().optional(),
  })
  .refine((r) => r.tool || r.commandPrefix || r.pathGlob, 'a rule names a tool, a command prefix or a path glob')
export interface ApprovalRule {
  id: string
  workspaceId: string
  /** The member it is for; null: for the whole team (the workspace). */
  memberId: string | null
  effect: 'allow' | 'deny'
  tool: string | null
  commandPrefix: string | null
  pathGlob: string | null
  createdAt: string
}
export const DecisionStatus = z.enum(decisionStatuses)
export const TaskStatus = z.enum(['todo', 'in_progress', 'delivered', 'accepted', 'blocked', 'cancelled'])
export const TaskFlag = z.enum(['requirements_updated', 'needs_adjustment', 'needs_reverification'])
export const LinkState = z.enum(['current', 'suspect'])
export const ReportKind = z.enum(reportKinds)
export const Verdict = z.enum(verdicts)
export const ProposalState = z.enum(['pending', 'accepted', 'rejected'])
export const ProviderKind = z.enum(providerKinds)
export const MemberState = z.enum(['idle', 'running', 'waiting_approval', 'error'])
export const Isolation = z.enum(['worktree', 'shared'])
export const MergeStrategy = z.enum(['merge', 'squash', 'ff-only'])
/** Which side of a diff a comment's line numbers count on: the task's head ('new') or its base ('old'). */
export const DiffCommentSide = z.enum(['new', 'old'])
/** A git branch name as Concord accepts it from a user (git check-ref-format's rules, conservatively). */
export const BranchName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(
    /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)(?!.*\/$)(?!.*\.$)[^\s~^:?*[\\\x00-\x1f\x7f]+$/,
    'is not a valid branch name',
  )

export const Artifact = z
  .strictObject({
    /** A commit SHA (short works), a branch, a tag or HEAD: resolved with git to the full SHA in the workspace's repository. */
    commit: z.string().trim().min(1).max(256).optional(),
    digest: z.string().trim().min(1).max(200).optional(),
  })
  .refine((a) => a.commit !== undefined || a.digest !== undefined, 'needs a commit or a digest')

export const ModelProviderInput = z.strictObject({
  kind: ProviderKind,
  model: z.string().trim().min(1).max(200),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).max(500).optional(),
  /** A task in progress flagged needs_adjustment stops the running command or model call; the turn goes on with the notice. */
  interruptOnAdjustment: z.boolean().optional(),
})

/** An external coding agent driven over ACP (Claude Code, Codex, Gemini CLI, or any ACP command). */
export const AgentPreset = z.enum(agentKinds)
export const AcpProviderInput = z
  .strictObject({
    kind: z.literal('acp'),
    agent: AgentPreset,
    /** Overrides the preset's command (required for custom). */
    command: z.string().trim().min(1).max(1000).optional(),
    args: z.array(z.string().max(1000)).max(50).optional(),
    /** Plain variables for the agent's process (never secrets: the key goes in apiKey). */
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a variable name'), z.string().max(10_000))
      .optional(),
    /** Kept in the secret store; passed only to this agent's process, as the preset's key variable. */
    apiKey: z.string().min(1).max(500).optional(),
    /**
     * The environment variable the key is set in (OPENAI_API_KEY, ANTHROPIC_API_KEY, …): a custom agent's own; for a
     * preset, overrides its variable. Checked when saved (keyVariableRefusal).
     */
    keyVariable: z.string().trim().min(1).max(100).optional(),
    /** HOME (and CODEX_HOME, CLAUDE_CONFIG_DIR) under the data folder, per member: members share no agent state. */
    isolatedHome: z.boolean().optional(),
    /** A task flagged needs_adjustment cancels the running turn and re-prompts with the notice at once. */
    interruptOnAdjustment: z.boolean().optional(),
    /** Concord stops a turn that runs longer (default 600 s = 10 min). */
    turnTimeoutSeconds: z.number().int().min(1).max(86_400).optional(),
  })
  .refine((a) => a.agent !== 'custom' || !!a.command, {
    message: 'a custom agent needs its command',
    path: ['command'],
  })

export const ProviderInput = z.union([ModelProviderInput, AcpProviderInput])

// ---- entities (results) ----

export interface Workspace {
  id: string
  name: string
  repoPath: string
  createdAt: string
  /** Set while archived (workspaces.archive): left out of workspaces.list. */
  archivedAt?: string | null
}

/** A workspace's own settings (kept in its harness file). */
export interface WorkspaceSettings {
  /** Variables added to the allow-listed environment of every command in this workspace. Never secrets. */
  commandEnv: Record<string, string>
  /** git_commit runs the repository's hooks; off, hooks never run. */
  gitHooks: boolean
  /** worktree: each started task gets its own branch and worktree; shared: every member writes the user's checkout. */
  isolation: z.infer<typeof Isolation>
  /** The branch tasks start from and merge into (null in a shared workspace that never chose one). */
  baseBranch: string | null
  /** Delete a task's branch once it is merged (its worktree is always removed). */
  deleteMergedBranches: boolean
  /** A flagged member (or the author of evidence made stale) that is idle gets a turn started by Concord. Default on. */
  autoTurns: boolean
  /** A passing implementation report by the assignee on a task in progress delivers it on the report's commit. Default off. */
  autoDeliver: boolean
  /**
   * A delivery asks the team's tester and reviewer (the members whose role fits) for the test and review the task
   * requires and lacks, with the message the card's "Ask" would send. Default on; it asks no one when none fits.
   */
  autoChecks: boolean
  /** New tasks are plan first (a plan approved before any code is written) unless created otherwise. Default off. */
  planFirst: boolean
  /** Moving a task to in progress starts its assignee's turn on it (a message from Concord naming the task). Default on. */
  startAgentOnTaskStart: boolean
  /**
   * A decision changed after a task implementing it was merged: `create` makes the follow-up task at once (default),
   * `offer` leaves it to the user (the edit's answer and preview offer it; tasks.followUp creates it).
   */
  followUps: FollowUpMode
  /** How a task's branch is brought up to date with the base branch (tasks.updateBranch): merge (default) or rebase. */
  updates: UpdateMode
  /**
   * verified (default): the base branch only ever receives a tree a passing test report checked; a merge whose tree
   * would differ is queued (updated, re-verified, then landed). as-accepted: tasks.merge lands what was accepted at
   * once, even a merged tree no report checked.
   */
  merges: MergeMode
  /** Run in the sandbox in a task's new tree, after the files below are copied (e.g. `npm ci`); null: none. */
  setupCommand: string | null
  /** Files and glob patterns (relative to your checkout) copied from it into a task's new tree: `.env`, local config. */
  copyFiles: string[]
  /** The command a task's card can start in its tree and stop (a dev server, the tests); null: none. */
  runCommand: string | null
  /** The setup and run commands may use the network (they are yours, not a member's). Default on. */
  treeNetwork: boolean
  /** The most a task tree's new commits may weigh when Concord brings them into your repository (MB). Default 500. */
  treeTransferLimitMB: number
}

export const UpdateMode = z.enum(['merge', 'rebase'])
export type UpdateMode = z.infer<typeof UpdateMode>

export const MergeMode = z.enum(['verified', 'as-accepted'])
export type MergeMode = z.infer<typeof MergeMode>

export const FollowUpMode = z.enum(['create', 'offer'])
export type FollowUpMode = z.infer<typeof FollowUpMode>

export interface DiffFile {
  path: string
  /** The path before a rename or copy. */
  oldPath: string | null
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed'
  /** null for a binary file. */
  additions: number | null
  deletions: number | null
}

export interface TaskDiff {
  /** Full SHAs compared. */
  base: string
  head: string
  files: DiffFile[]
  /** Unified diff from git, cut at a limit (then truncated is true and the patch ends with a marker line). */
  patch: string
  truncated: boolean
  /** Files changed in the task's worktree but not committed: not part of head, so not in this diff. */
  uncommitted: string[]
  /** sessions.changes only: the commits the turn's tree was at, by which the diff is named (base and head are trees). */
  turn?: TurnCommits
  /**
   * tasks.diff of a merged task: the diff is what was merged (its change against the base it was merged on, not the
   * base branch now, which holds it). `onto`: the base branch's head the merge was made on (null for a merge made
   * before Concord kept it); `branch`: the base branch's name.
   */
  merged?: { commit: string; onto: string | null; branch: string | null }
}

/** The commits around one turn: where its tree was before and after, and the commits it made. */
export interface TurnCommits {
  /** null: the tree had no commit, or the turn was recorded before commits were kept. */
  fromCommit: string | null
  toCommit: string | null
  /** The tree had changes not committed at fromCommit when the turn began (they are in the diff's base). */
  uncommittedBefore: boolean
  /** Some of the turn's changes are not committed at toCommit (they are in the diff's head). */
  uncommittedAfter: boolean
  /** The commits the turn made, oldest first (up to 50). */
  commits: { sha: string; subject: string }[]
}

/** The files one turn changed in its tree (on the turn's last step). */
export interface TurnChange {
  path: string
  status: DiffFile['status']
}

/** A command Concord ran in a task's tree for the user: the setup (with the files copied first) or the run command. */
export interface TreeRun {
  taskId: string
  kind: 'setup' | 'run'
  /** null: a setup that only copied files. */
  command: string | null
  /** interrupted: a setup Concord was stopped during (killed, crashed); it runs again before the next turn in the tree. */
  state: 'running' | 'passed' | 'failed' | 'stopped' | 'interrupted'
  exitCode: number | null
  /** Output, stdout and stderr interleaved, first and last 32 KB kept; the copy's own lines first for a setup. */
  output: string
  /** Setup: the files copied from the checkout, and those refused (a symlink out of it, a path in the tree taken). */
  copied: string[]
  refused: string[]
  /** false: no OS sandbox here, the command ran with the allow-listed environment only. */
  sandboxed: boolean
  /** The files the command runs (the script it names, package.json for `npm run`…) with their git blob ids as run. */
  scripts?: Record<string, string>
  /**
   * Those of them a member changed since the user last ran the command (before any run: since the task's base): the
   * command ran with the network off this once (issue 32).
   */
  memberChanged?: string[]
  /** Whether the command had the network. */
  network?: boolean
  startedAt: string
  endedAt: string | null
}

/** workspaces.firstCommit: the commit made, the branch it started, and the settings now (the base branch is set). */
export interface FirstCommit {
  commit: string
  branch: string
  /** How many files it holds (0 for an empty commit). */
  files: number
  /** Who the commit is by: the user's git identity, or Concord when git has none. */
  author: string
  settings: WorkspaceSettings
}

/** workspaces.open: the workspace and what its folder means for isolation. */
export interface OpenedWorkspace extends Workspace {
  settings: WorkspaceSettings
  /** Plain words for what the user should know (not a git repository, submodules, LFS). */
  notes: string[]
}

export interface ModelMemberProvider {
  kind: z.infer<typeof ProviderKind>
  model: string
  baseURL: string | null
  /** On: a task in progress flagged needs_adjustment stops its running command; off, it hears after the command ends. */
  interruptOnAdjustment: boolean
  hasKey: boolean
}

export interface AcpMemberProvider {
  kind: 'acp'
  /** The agent preset, so lists that show a member's model show which agent it is. */
  model: string
  baseURL: null
  agent: z.infer<typeof AgentPreset>
  command: string | null
  args: string[]
  env: Record<string, string>
  /** The variable the stored key is set in, as the member names it; null: the preset's own (none for a custom agent). */
  keyVariable: string | null
  isolatedHome: boolean
  interruptOnAdjustment: boolean
  turnTimeoutSeconds: number
  hasKey: boolean
}

export type MemberProvider = ModelMemberProvider | AcpMemberProvider

export interface Member {
  id: string
  workspaceId: string
  name: string
  role: string
  authority: z.infer<typeof Authority>
  instructions: string
  provider: MemberProvider | null
  approval: z.infer<typeof ApprovalPolicy>
  maxSteps: number
  /** Plan every N steps (0: never). */
  planningInterval: number
  /** Its commands may use the network; off by default. */
  network: boolean
  /** Set while archived (members.archive): left out of lists. */
  archivedAt?: string | null
  createdAt: string
  updatedAt: string
}

/** Another workspace whose team can be copied into this one (members.teams). */
export interface TeamSource {
  workspaceId: string
  /** The workspace's name, as the offer says it: "Use the team of <name>". */
  name: string
  members: { name: string; role: string; provider: string | null }[]
  /** Its approval rules, the members' and the team's. */
  rules: number
}

/** members.copyTeam: the members made in this workspace and the approval rules they brought. */
export interface CopiedTeam {
  members: Member[]
  rules: ApprovalRule[]
}

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

/** One page of tasks.page, ordered by key number. `total`: rows matching the filters. */
export interface TaskPage {
  items: Task[]
  nextCursor: string | null
  total: number
}

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
}

export interface HarnessEvent {
  id: number
  type: string
  payload: unknown
  createdAt: string
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

// ---- runtime: member sessions ----

export type StepKind = StepKindValue
export type StepStatus = StepStatusValue

export interface StepToolCall {
  id: string
  name: string
  argumentsText: string
}

/**
 * One structured step of a member's session. `user`: the human's message; `message`: a message from
 * another member (fromMemberId); `model`: one model reply (text + toolCalls + usage); `tool`: one tool
 * call's execution and observation; `notice`: a decision-change notice injected into the context;
 * `error` / `interrupted`: how a turn ended abnormally; `plan`: a planning step.
 */
export interface Step {
  id: string
  seq: number
  memberId: string
  turnId: string
  kind: StepKind
  status: StepStatus
  text: string
  toolCalls: StepToolCall[]
  /** callId: this step's id, used for approvals; toolCallId: the model's own id for the call (matches model.toolCalls[].id). */
  tool: { callId: string; toolCallId: string; name: string; argumentsText: string; isError: boolean } | null
  fromMemberId: string | null
  taskId: string | null
  usage: { input: number; output: number } | null
  /** On the last step of a turn: the files the turn changed in its tree. */
  changes: TurnChange[] | null
  /** 'concord': a turn Concord started itself (a flag or stale evidence), no one typed it. */
  origin?: 'concord' | null
  /** What its text mentioned, pinned when the text was stored; empty on steps from before pins existed. */
  refs: StepRef[]
  /**
   * On a turn's first step, for a turn that ran in its task's tree: the commit the tree was at before it (what
   * sessions.undoTurn puts back), and once undone, when and where what was there then is kept.
   */
  checkpoint?: { commit: string; undone: StepUndone | null } | null
  startedAt: string
  endedAt: string | null
}

/** A turn undone: the tree is back at `commit`; what it held at the undo is the commit `keptCommit` at `keptRef` in the task's tree. */
export interface StepUndone {
  at: string
  commit: string
  keptRef: string
  keptCommit: string
}

/** sessions.undoTurn's answer. */
export interface UndoneTurn {
  turnId: string
  taskId: string
  /** The commit the tree is back at, and the one it was at before the undo. */
  commit: string
  from: string
  /** What the tree held at the undo, committed on `from`, in the task's tree (`tree`) under this ref. */
  keptRef: string
  keptCommit: string
  tree: string
  /** The tree is byte for byte what it was before the turn (files git ignores are left as they are). */
  exact: boolean
  /** The commits the undo took off the task's branch. */
  commitsUndone: string[]
  task: Task
}

/** A mention pinned with its step: the record's key and id, and for a decision the version it had then. */
export interface StepRef {
  key: string
  kind: 'decision' | 'task' | 'report'
  id: string
  version?: number
}

export interface SessionInfo {
  memberId: string
  state: z.infer<typeof MemberState>
  error: string | null
  /** The stable code of `error` (null when there is none). */
  errorCode: SessionErrorCode | null
  queued: number
  /**
   * Calls waiting for the human. `why`: why this one asks under the member's policy; `suggestion`: the rule
   * "Always allow" would make (a command prefix, else the tool), or `noRule`: why it offers none (a command Concord
   * cannot take apart with confidence, a shell, `env`, an interpreter with code).
   */
  pendingApprovals: {
    callId: string
    name: string
    argumentsText: string
    why?: string
    suggestion?: { tool: string; commandPrefix?: string; noRule?: string }
    /** A write_file's target file as it is now, to show the change against it; null: the write creates it. */
    current?: string | null
  }[]
  pendingNotices: number
  /** The member asked the human this (ask_human) and no message from the human has followed yet. */
  question: { stepId: string; text: string } | null
}

export interface SessionPage extends SessionInfo {
  steps: Step[]
  /** True when older steps exist before the first one returned (page with `before`). */
  hasMore: boolean
}

/** One folder of the machine running Concord, for choosing a repository without typing its path. */
export interface FolderEntry {
  name: string
  path: string
  /** Has a .git folder or file (a repository or a worktree). */
  isRepo: boolean
}

export interface FolderListing {
  /** Absolute, with symlinks resolved. */
  path: string
  parent: string | null
  home: string
  isRepo: boolean
  /** Sub-folders, hidden ones (.name) left out, sorted by name. */
  folders: FolderEntry[]
  /** More sub-folders than were listed. */
  truncated: boolean
}

export interface ExportResult {
  format: 'madr' | 'markdown' | 'json'
  outDir: string
  /** outDir relative to the repository ('' for its root), or null when outDir lies outside it. */
  folder: string | null
  /** Every file of the export (absolute paths), whether its content changed or not. */
  files: string[]
  /** The files whose content is new or changed (written, or to be written by a dry run). */
  changed: string[]
  /** Concord's earlier files of renamed decisions, removed (or to be removed by a dry run). */
  removed: string[]
  /** True when nothing was written. */
  dryRun: boolean
}

/** The export as a store-only zip: entries are the files' paths relative to the repository. */
export interface ExportDownload {
  name: string
  /**
   * Where the bridge serves the zip, once (`GET /downloads/<id>/<name>`, a path on its origin): the zip was written to
   * a file as it was built, never held whole in memory. Unfetched, it is removed after an hour.
   */
  url: string
  /** The zip's size in bytes. */
  size: number
  /** How many files it holds (their names are in the zip: 100,000 of them would make a large answer). */
  count: number
}

/** What the core can promise about the machine it runs on. Never holds a path of the data folder. */
export interface SystemInfo {
  /** Where members' API keys live: encrypted by a system keychain, or a 0600 file in plain text. */
  secrets: { encrypted: boolean; description: string }
  /** Whether members' commands run in an OS sandbox here, and why not when they do not. */
  sandbox: { available: boolean; kind: 'bwrap' | 'sandbox-exec' | null; reason?: string }
  /** Whether tasks.openTree can open a task's tree here (the desktop app); else the page copies its path. */
  openTree: boolean
}

/** The editors a task's tree opens in, each by the URL its installer registers (vscode://file/<path>, …). */
export const Editor = z.enum(['vscode', 'cursor', 'windsurf', 'vscodium', 'zed'])
export type Editor = z.infer<typeof Editor>
export const editorNames: Record<Editor, string> = {
  vscode: 'VS Code',
  cursor: 'Cursor',
  windsurf: 'Windsurf',
  vscodium: 'VSCodium',
  zed: 'Zed',
}
/** Where tasks.openTree opens a tree: the editor, a terminal, or the system's file manager. */
export const OpenTreeIn = z.enum(['editor', 'terminal', 'files'])
export type OpenTreeIn = z.infer<typeof OpenTreeIn>

// Archive and search (issue 13).
export interface ArchivedItems {
  members: Member[]
  tasks: Task[]
}

export interface SearchHit {
  stepId: string
  memberId: string
  kind: StepKind
  /** Text around the match; each match sits between SEARCH_MARK_START and SEARCH_MARK_END. */
  snippet: string
  createdAt: string
}

export { SEARCH_MARK_END, SEARCH_MARK_START } from './search-marks'

/** Where a record's words matched: its key, a field it has now, or (a decision) one of its earlier revisions. */
export type RecordHitField =
  'key' | 'title' | 'statement' | 'rationale' | 'history' | 'spec' | 'acceptance' | 'summary' | 'claim'

/** A decision, task or report found by search.records. */
export interface RecordHit {
  kind: 'decision' | 'task' | 'report'
  id: string
  key: string
  /** The record's title now; a report's is its kind and task, as its card says ("test of T-1"). */
  title: string
  /** A decision's or task's status, a report's verdict. */
  status: string
  field: RecordHitField
  /** The revision that matched, when field is 'history'. */
  version?: number
  /** The matched text around the words, each match between SEARCH_MARK_START and SEARCH_MARK_END; a key hit's is its title. */
  snippet: string
  /** A report's task. */
  taskId?: string
}

// The items behind two Figures tiles (issue 13): notices sent and the turns Concord started.
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

/** What made Concord start a turn: a flagged task after a decision changed, or a report a delivery left stale. */
export type AutoTurnCause = 'task_flagged' | 'evidence_stale' | 'other'

/** A turn Concord started itself instead of a person relaying the change. */
export interface AutoTurn {
  memberId: string
  taskId: string | null
  taskKey: string | null
  cause: AutoTurnCause
  /** The trigger in words (e.g. "T-2 was flagged when D-1 changed to v3"). */
  trigger: string
  createdAt: string
  /** The step that started the turn; turns that joined one still queued share it. */
  stepId: string
}

/** One page of autoTurns.list, newest first. `total`: every turn Concord started (the figure). */
export interface AutoTurnPage {
  items: AutoTurn[]
  nextCursor: string | null
  total: number
}

/**
 * A comment on a line or a range of lines of a task's diff (issue 33): a draft until sent to the assignee with the
 * others (diffComments.send), resolved when a later delivery changes those lines.
 */
export interface DiffComment {
  id: string
  taskId: string
  path: string
  startLine: number
  endLine: number
  side: z.infer<typeof DiffCommentSide>
  /** The commit the comment was made on (the head the Changes view showed). */
  commit: string
  /** The lines commented on, as they were in that commit. */
  quoted: string
  body: string
  state: 'draft' | 'sent' | 'resolved'
  createdAt: string
  sentAt: string | null
  resolvedAt: string | null
  /** The delivery that changed the lines. */
  resolvedCommit: string | null
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

/** The workspace's forge settings (forge.configure); the token itself is never returned. */
export interface ForgeSettings {
  baseUrl: string
  remote: string
  hasToken: boolean
}

/** Where a submitted plan stands: waiting for the user, approved, sent back with a comment, or rejected. */
export const PlanState = z.enum(['pending', 'approved', 'changes_requested', 'rejected'])

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
