/**
 * The API contract: one map from method name to its params schema and result type, and one map of
 * events. Electron IPC, the preload `window.api`, the browser bridge and the renderer client are all
 * derived from these two maps.
 */
import { z } from 'zod'
import * as s from './schemas'

const r = <T>() => undefined as unknown as T
const method = <P extends z.ZodType, R>(params: P, _result: R) => ({ params, result: _result })

const actor = { actorId: s.Id.optional() }
const ws = { workspaceId: s.Id }
const statementText = z.string().trim().min(1, 'must not be empty').max(20_000)
/** No path or search text holds a NUL: the file system and SQLite's full-text index would fail on it (500, not 400). */
const noNul = (t: z.ZodString) => t.regex(/^[^\0]*$/, 'must not contain a NUL character')
const pathText = noNul(z.string().min(1).max(4096))

export const methods = {
  'workspaces.open': method(
    z.strictObject({
      repoPath: pathText,
      name: z.string().trim().min(1).max(200).optional(),
      /** Default: worktree for a git repository, shared otherwise. */
      isolation: s.Isolation.optional(),
      /** Default: the branch checked out when the workspace is first opened. */
      baseBranch: s.BranchName.optional(),
    }),
    r<s.OpenedWorkspace>(),
  ),
  'workspaces.list': method(z.strictObject({}), r<s.Workspace[]>()),
  'workspaces.settings': method(z.strictObject({ ...ws }), r<s.WorkspaceSettings>()),
  /** Changes the workspace's settings; fields left out keep their value. */
  /**
   * Where the workspace's pull requests go: the forge API (default https://api.github.com), the remote pushed to
   * (default origin), the token (kept in the secret store, never returned, logged or given to a member; null removes it).
   */
  'forge.configure': method(
    z.strictObject({
      ...ws,
      baseUrl: z.url().max(2000).optional(),
      remote: z.string().trim().min(1).max(200).optional(),
      token: z.string().trim().min(1).max(1000).nullable().optional(),
    }),
    r<s.ForgeSettings>(),
  ),
  'workspaces.update': method(
    z.strictObject({
      ...ws,
      /** Replaces the variables added to every command's environment (secret-looking names are refused). */
      commandEnv: z
        .record(z.string().min(1).max(200), z.string().max(4096))
        .refine((e) => Object.keys(e).length <= 100, 'at most 100 variables')
        .optional(),
      /** git_commit runs the repository's hooks (off: hooks never run). */
      gitHooks: z.boolean().optional(),
      isolation: s.Isolation.optional(),
      baseBranch: s.BranchName.optional(),
      deleteMergedBranches: z.boolean().optional(),
      /** Concord starts a turn for a flagged member, or the author of evidence made stale, when it is idle. */
      autoTurns: z.boolean().optional(),
      /** A passing implementation report by the assignee delivers its task on the report's commit. */
      autoDeliver: z.boolean().optional(),
      /** A delivery asks the tester and reviewer for the checks the task requires and lacks. */
      autoChecks: z.boolean().optional(),
      planFirst: z.boolean().optional(),
      /** Moving a task to in progress starts its assignee's turn on it. */
      startAgentOnTaskStart: z.boolean().optional(),
      /** A decision changed after its task was merged: create the follow-up task, or offer it. */
      followUps: s.FollowUpMode.optional(),
      /** How tasks.updateBranch brings the base branch into a task's tree: merge (default) or rebase. */
      updates: s.UpdateMode.optional(),
      /** verified (default): the base only receives a tree a passing test checked (merges queue); as-accepted: land at once. */
      merges: s.MergeMode.optional(),
      /** Run in the sandbox in each new task tree (empty: none). */
      setupCommand: z.string().max(4000).optional(),
      /** Copied from your checkout into each new task tree: paths or globs relative to it (no .., no .git). */
      copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
      /** The command a task's card can start in its tree (empty: none). */
      runCommand: z.string().max(4000).optional(),
      treeNetwork: z.boolean().optional(),
      /** The most a task tree's new commits may weigh when brought into your repository, in MB. */
      treeTransferLimitMB: z.number().int().min(1).max(1_000_000).optional(),
    }),
    r<s.WorkspaceSettings>(),
  ),
  /**
   * The first commit of a repository that has none (git init and nothing else), so tasks have a base to branch from:
   * an empty commit, or one of the folder's files (what .gitignore leaves). Refused once the repository has a commit.
   */
  'workspaces.firstCommit': method(
    z.strictObject({
      ...ws,
      contents: z.enum(['empty', 'files']),
      message: z.string().trim().min(1).max(1000).optional(),
    }),
    r<s.FirstCommit>(),
  ),
  /** The sub-folders of an absolute path (default: the home folder), to choose a repository. */
  'folders.browse': method(z.strictObject({ path: pathText.optional() }), r<s.FolderListing>()),
  /** The desktop app's native folder dialog; `unsupported` in the browser (use folders.browse). */
  'folders.pick': method(z.strictObject({ title: z.string().max(200).optional() }), r<{ path: string | null }>()),
  /**
   * The models an OpenAI-compatible server lists (GET <baseURL>/models), so the setup can prefill one: asked by
   * Concord, not the page (no CORS, and the key stays out of the page once typed). A server that does not answer
   * with a list (many do not offer one) is no failure of the call: no models, and `unavailable` says why.
   */
  'providers.models': method(
    z.strictObject({
      baseURL: z
        .string()
        .trim()
        .max(2000)
        .regex(/^https?:\/\/\S+$/, 'an http(s) URL'),
      apiKey: z.string().max(1000).optional(),
    }),
    r<{ models: string[]; unavailable?: string }>(),
  ),
  /** What this Concord can promise about the machine it runs on (where keys live); never a path. */
  'system.info': method(z.strictObject({}), r<s.SystemInfo>()),
  /**
   * The desktop app shows a system notification (Electron's, from the main process); `unsupported` in the browser,
   * whose page uses the Notification API itself. The renderer asks only when the user turned notifications on.
   */
  'system.notify': method(
    z.strictObject({ title: z.string().trim().min(1).max(200), body: z.string().max(1000) }),
    r<{ shown: boolean }>(),
  ),

  'members.create': method(
    z.strictObject({
      ...ws,
      name: z.string().trim().min(1).max(100),
      role: z.string().trim().min(1).max(100),
      authority: s.Authority.optional(),
      provider: s.ProviderInput.optional(),
      instructions: z.string().max(50_000).optional(),
      approval: s.ApprovalPolicy.optional(),
      maxSteps: z.number().int().min(1).max(1000).optional(),
      planningInterval: z.number().int().min(0).max(100).optional(),
      /** Commands of this member may use the network (off by default). */
      network: z.boolean().optional(),
    }),
    r<s.Member>(),
  ),
  'members.update': method(
    z.strictObject({
      memberId: s.Id,
      name: z.string().trim().min(1).max(100).optional(),
      role: z.string().trim().min(1).max(100).optional(),
      authority: s.Authority.optional(),
      provider: s.ProviderInput.nullable().optional(),
      instructions: z.string().max(50_000).optional(),
      approval: s.ApprovalPolicy.optional(),
      maxSteps: z.number().int().min(1).max(1000).optional(),
      planningInterval: z.number().int().min(0).max(100).optional(),
      /** Commands of this member may use the network (off by default). */
      network: z.boolean().optional(),
    }),
    r<s.Member>(),
  ),
  'members.list': method(z.strictObject({ ...ws }), r<s.Member[]>()),
  /** The other workspaces (not archived) with a team, most recently opened first: what members.copyTeam can copy. */
  'members.teams': method(z.strictObject({ ...ws }), r<s.TeamSource[]>()),
  /**
   * "Use the team of <workspace>": copies the members of `fromWorkspaceId` (not archived) into this workspace, with
   * their providers, approval policies and approval rules (each member's and the team's). Keys are referenced in the
   * secret store, never copied. A member name already in this workspace refuses the whole copy (name_taken).
   */
  'members.copyTeam': method(z.strictObject({ ...ws, fromWorkspaceId: s.Id }), r<s.CopiedTeam>()),

  'decisions.create': method(
    z.strictObject({
      ...ws,
      title: z.string().trim().min(1, 'must not be empty').max(300),
      statement: statementText,
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      supersedes: s.Id.optional(),
      sourceMessageId: z.string().max(200).optional(),
      ...actor,
    }),
    r<s.Decision>(),
  ),
  'decisions.get': method(z.strictObject({ decisionId: s.Id }), r<s.Decision>()),
  'decisions.list': method(z.strictObject({ ...ws }), r<s.Decision[]>()),
  'decisions.history': method(z.strictObject({ decisionId: s.Id }), r<s.Revision[]>()),
  'decisions.update': method(
    z.strictObject({
      decisionId: s.Id,
      expectedVersion: z.number().int().min(1),
      title: z.string().trim().min(1, 'must not be empty').max(300).optional(),
      statement: statementText.optional(),
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      reason: z.string().max(5_000).optional(),
      editorial: z.boolean().optional(),
      sourceMessageId: z.string().max(200).optional(),
      ...actor,
    }),
    r<{ decision: s.Decision; impact: s.Impact; proposal?: s.Proposal }>(),
  ),
  /** A new revision with an earlier revision's content, through the normal edit path (decisions.update). */
  'decisions.revert': method(
    z.strictObject({
      decisionId: s.Id,
      toVersion: z.number().int().min(1),
      expectedVersion: z.number().int().min(1),
      reason: z.string().max(5_000).optional(),
      sourceMessageId: z.string().max(200).optional(),
      ...actor,
    }),
    r<{ decision: s.Decision; impact: s.Impact; proposal?: s.Proposal }>(),
  ),
  /** The whole impact of the edit that produced `version`, paged (tasks and reports each in key order). */
  'decisions.impact': method(
    z.strictObject({
      decisionId: s.Id,
      version: z.number().int().min(1),
      cursor: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.ImpactPage>(),
  ),
  'decisions.previewImpact': method(
    z.strictObject({
      decisionId: s.Id,
      statement: statementText.optional(),
      status: s.DecisionStatus.optional(),
      editorial: z.boolean().optional(),
    }),
    r<s.Impact>(),
  ),

  'proposals.create': method(
    z.strictObject({
      decisionId: s.Id,
      title: z.string().trim().min(1).max(300).optional(),
      statement: statementText.optional(),
      rationale: z.string().max(20_000).optional(),
      status: s.DecisionStatus.optional(),
      reason: z.string().max(5_000).optional(),
      sourceMessageId: z.string().max(200).optional(),
      ...actor,
    }),
    r<s.Proposal>(),
  ),
  'proposals.accept': method(
    z.strictObject({ proposalId: s.Id, ...actor }),
    r<{ proposal: s.Proposal; decision: s.Decision; impact: s.Impact }>(),
  ),
  'proposals.reject': method(
    z.strictObject({ proposalId: s.Id, reason: z.string().max(5_000).optional(), ...actor }),
    r<s.Proposal>(),
  ),
  'proposals.list': method(z.strictObject({ ...ws, state: s.ProposalState.optional() }), r<s.Proposal[]>()),

  'tasks.create': method(
    z.strictObject({
      ...ws,
      title: z.string().trim().min(1, 'must not be empty').max(300),
      spec: z.string().max(50_000).optional(),
      acceptanceCriteria: z.string().max(20_000).optional(),
      assigneeId: s.Id.nullable().optional(),
      decisionIds: z.array(s.Id).max(200).optional(),
      blockedBy: z.array(s.Id).max(200).optional(),
      requiredReports: z.array(s.ReportKind).max(3).optional(),
      /** Plan first (default: the workspace's planFirst setting). */
      planFirst: z.boolean().optional(),
      ...actor,
    }),
    r<s.Task>(),
  ),
  'tasks.get': method(z.strictObject({ taskId: s.Id }), r<s.Task>()),
  'tasks.list': method(z.strictObject({ ...ws, assigneeId: s.Id.optional() }), r<s.Task[]>()),
  /** Tasks by id, in the order given; unknown ids are left out (ids of several workspaces: each must exist). */
  'tasks.getMany': method(z.strictObject({ ids: z.array(s.Id).min(1).max(500) }), r<s.Task[]>()),
  /** Tasks page by page, ordered by key number, filtered here. `flagged`: has a flag or a suspect link. */
  'tasks.page': method(
    z.strictObject({
      ...ws,
      status: z.array(s.TaskStatus).min(1).max(6).optional(),
      assigneeId: s.Id.optional(),
      flagged: z.boolean().optional(),
      decisionId: s.Id.optional(),
      cursor: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.TaskPage>(),
  ),
  'tasks.update': method(
    z.strictObject({
      taskId: s.Id,
      title: z.string().trim().min(1).max(300).optional(),
      spec: z.string().max(50_000).optional(),
      acceptanceCriteria: z.string().max(20_000).optional(),
      assigneeId: s.Id.nullable().optional(),
      decisionIds: z.array(s.Id).max(200).optional(),
      blockedBy: z.array(s.Id).max(200).optional(),
      requiredReports: z.array(s.ReportKind).max(3).optional(),
      /** Plan first; changes only before coding starts (to do, or no plan approved yet): else `invalid_transition`. */
      planFirst: z.boolean().optional(),
      ...actor,
    }),
    r<s.Task>(),
  ),
  'tasks.setStatus': method(
    z.strictObject({
      taskId: s.Id,
      status: s.TaskStatus,
      artifact: s.Artifact.optional(),
      /** With a start (in_progress): make the task plan first, or not, as it starts. */
      planFirst: z.boolean().optional(),
      ...actor,
    }),
    r<s.Task>(),
  ),
  'tasks.acknowledge': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  'tasks.accept': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  /** The task's whole change: its head (or delivered commit) against the base it started from, or `against`. */
  'tasks.diff': method(
    z.strictObject({ taskId: s.Id, against: z.string().trim().min(1).max(256).optional() }),
    r<s.TaskDiff>(),
  ),
  /**
   * A draft comment on lines of the task's diff as tasks.diff shows it now (its head): `side` new (default) numbers the
   * head's lines, old the base's. A path the diff does not change is `path_not_in_diff`; lines past the file's end (or
   * endLine before startLine) are `line_out_of_range`.
   */
  'diffComments.add': method(
    z.strictObject({
      taskId: s.Id,
      path: pathText,
      startLine: z.number().int().min(1),
      endLine: z.number().int().min(1).optional(),
      side: s.DiffCommentSide.optional(),
      body: z.string().trim().min(1, 'must not be empty').max(20_000),
    }),
    r<s.DiffComment>(),
  ),
  /** The task's comments, oldest first (sent ones a later delivery changed are resolved first). */
  'diffComments.list': method(z.strictObject({ taskId: s.Id }), r<s.DiffComment[]>()),
  /** Removes a draft; a sent comment stays (`invalid_transition`). */
  'diffComments.delete': method(z.strictObject({ commentId: s.Id }), r<{ deleted: true }>()),
  /**
   * Sends every draft of the task to its assignee as one message, each with its file:line and the quoted lines, as
   * sessions.send does (the member's turn runs as usual).
   */
  'diffComments.send': method(
    z.strictObject({ taskId: s.Id }),
    r<{ stepId: string; sent: number; comments: s.DiffComment[] }>(),
  ),
  /**
   * The assignee submits its plan for a plan-first task in progress (the submit_plan tool). Empty: `plan_empty`; a
   * task not plan first, not in progress, with a plan already waiting or approved: `invalid_transition`.
   */
  'plans.submit': method(
    z.strictObject({ taskId: s.Id, plan: z.string().max(50_000), ...actor }),
    r<{ plan: s.TaskPlan; task: s.Task }>(),
  ),
  /** The task's plans, oldest first. */
  'plans.list': method(z.strictObject({ taskId: s.Id }), r<s.TaskPlan[]>()),
  /** A decider approves the waiting plan: the assignee's next turn writes code, the plan in its brief. */
  'plans.approve': method(
    z.strictObject({ taskId: s.Id, ...actor }),
    r<{ plan: s.TaskPlan; task: s.Task; stepId: string | null }>(),
  ),
  /** A decider sends the waiting plan back with a comment, which goes to the assignee as a message: it plans again. */
  'plans.requestChanges': method(
    z.strictObject({ taskId: s.Id, comment: z.string().trim().min(1, 'must not be empty').max(20_000), ...actor }),
    r<{ plan: s.TaskPlan; task: s.Task; stepId: string | null }>(),
  ),
  /** A decider rejects the waiting plan: the task goes back to to-do (default) or is cancelled (`to`). */
  'plans.reject': method(
    z.strictObject({
      taskId: s.Id,
      to: z.enum(['todo', 'cancelled']).optional(),
      comment: z.string().trim().max(20_000).optional(),
      ...actor,
    }),
    r<{ plan: s.TaskPlan; task: s.Task }>(),
  ),
  /** Where a task's tree is on this machine, to open it yourself (the page cannot open programs). */
  'tasks.treePath': method(z.strictObject({ taskId: s.Id }), r<{ path: string }>()),
  /**
   * The desktop app opens a task's tree in an editor (`editor`, default VS Code), a terminal or the file manager;
   * `unsupported` under `concord serve` (system.info openTree is false: use tasks.treePath).
   */
  'tasks.openTree': method(
    z.strictObject({ taskId: s.Id, in: s.OpenTreeIn, editor: s.Editor.optional() }),
    r<{ path: string }>(),
  ),
  /** The follow-up task a decision's change offered for a merged task (workspace setting followUps: offer). */
  'tasks.followUp': method(z.strictObject({ taskId: s.Id, decisionId: s.Id, ...actor }), r<s.Task>()),
  /**
   * Deciders only, accepted tasks only: lands the accepted commit in the base branch of your checkout. With the
   * workspace setting merges: verified (default), a task whose merge would land a tree no passing report checked (the
   * base moved) is queued instead: the answer's mergeQueue says what it waits for; Concord merges it when verified.
   */
  'tasks.merge': method(z.strictObject({ taskId: s.Id, strategy: s.MergeStrategy.optional(), ...actor }), r<s.Task>()),
  /**
   * Brings the base branch's current head into the task's tree (merge, or rebase per the workspace setting `updates`),
   * in the sandbox, hooks off, as you. `assignee: true` hands the work to the assignee: an automatic turn in its tree
   * (a conflict left for it to resolve, or the clean update to test and deliver again). A conflict without an assignee
   * that can take a turn changes nothing and fails with merge_conflict.
   */
  'tasks.updateBranch': method(
    z.strictObject({ taskId: s.Id, assignee: z.boolean().optional(), ...actor }),
    r<s.BranchUpdate>(),
  ),
  /** Takes a task's queued merge out of the merge queue (merges: verified); the task stays as it is. */
  'tasks.unqueueMerge': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  /** What merging the task would do before it is done: whether it can land, and which other open tasks it concerns. */
  'tasks.mergePreview': method(z.strictObject({ taskId: s.Id }), r<s.MergePreview>()),
  /**
   * Pushes the task's branch to the remote (the user's own `git push`, with the user's environment and credentials) and
   * opens a pull request on GitHub whose body is the task's evidence (decisions and versions, reports and verdicts, the
   * commits they checked, the claims). Errors: no_remote, not_github_remote, push_failed, forge_error, no_token.
   */
  'tasks.openPullRequest': method(
    z.strictObject({ taskId: s.Id, remote: z.string().trim().min(1).max(200).optional(), ...actor }),
    r<s.Task>(),
  ),
  /** Reads the task's pull request again: its state, CI and review comments; merged on the forge marks it merged. */
  'tasks.refreshPullRequest': method(z.strictObject({ taskId: s.Id }), r<s.Task>()),
  /**
   * "Try it with…": runs a task not started yet on 2–4 distinct members at once, each attempt a task of its own (its
   * requirement, decisions and required reports copied) started with its member in its own branch and tree. Deciders
   * only. Errors: too_few_attempts, too_many_attempts, not_found (a member), invalid_transition (started or tried).
   */
  'tasks.tryWith': method(
    z.strictObject({ taskId: s.Id, memberIds: z.array(s.Id).max(50), ...actor }),
    r<{ task: s.Task; attempts: s.Task[] }>(),
  ),
  /** The attempts at a task side by side: member, status, files with +/- lines, reports and verdicts, tokens, time. */
  'tasks.attempts': method(z.strictObject({ taskId: s.Id }), r<s.TaskAttempts>()),
  /**
   * Picks a delivered attempt as the task's delivery: its branch, tree, artifact and reports become the task's, the
   * other attempts are cancelled and archived and their trees removed. Deciders only.
   */
  'tasks.pickAttempt': method(z.strictObject({ taskId: s.Id, attemptId: s.Id, ...actor }), r<s.TaskAttempts>()),

  'reports.submit': method(
    z.strictObject({
      taskId: s.Id,
      authorId: s.Id.optional(),
      kind: s.ReportKind,
      verdict: s.Verdict,
      summary: z.string().max(50_000).optional(),
      artifact: s.Artifact,
      basis: z
        .array(z.strictObject({ decisionId: s.Id, version: z.number().int().min(1) }))
        .max(200)
        .optional(),
      claims: z
        .array(
          z.strictObject({
            text: z.string().trim().min(1).max(5_000),
            decisionIds: z.array(s.Id).max(50),
            /** Whether this behaviour held; omitted, the report's verdict. */
            verdict: s.Verdict.optional(),
          }),
        )
        .max(500),
    }),
    r<s.Report>(),
  ),
  'reports.get': method(z.strictObject({ reportId: s.Id }), r<s.Report>()),
  'reports.list': method(
    z
      .strictObject({ taskId: s.Id.optional(), workspaceId: s.Id.optional() })
      .refine((p) => p.taskId || p.workspaceId, 'needs taskId or workspaceId'),
    r<s.Report[]>(),
  ),

  /** Reports by id, in the order given; unknown ids are left out (ids of several workspaces: each must exist). */
  'reports.getMany': method(z.strictObject({ ids: z.array(s.Id).min(1).max(500) }), r<s.Report[]>()),
  /** Reports page by page, newest first, filtered here. `stale`: has a stale claim or a suspect basis. */
  'reports.page': method(
    z.strictObject({
      ...ws,
      taskId: s.Id.optional(),
      authorId: s.Id.optional(),
      kind: s.ReportKind.optional(),
      stale: z.boolean().optional(),
      cursor: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.ReportPage>(),
  ),

  'notices.list': method(z.strictObject({ memberId: s.Id, pending: z.boolean().optional() }), r<s.Notice[]>()),
  'metrics.get': method(z.strictObject({ ...ws }), r<s.Metrics>()),
  // The items behind the Figures tiles "notices sent" and "relays you did not have to make" (issue 13).
  /** Every notice of the workspace, newest first, with the step that delivered it. */
  'notices.sent': method(
    z.strictObject({
      ...ws,
      cursor: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.SentNoticePage>(),
  ),
  /** The turns Concord started itself, newest first: as many as the figure counts. */
  'autoTurns.list': method(
    z.strictObject({
      ...ws,
      cursor: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.AutoTurnPage>(),
  ),
  'events.list': method(
    z.strictObject({
      ...ws,
      after: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    r<s.HarnessEvent[]>(),
  ),

  'sessions.send': method(
    z.strictObject({
      memberId: s.Id,
      text: z.string().trim().min(1, 'must not be empty').max(100_000),
      taskId: s.Id.optional(),
    }),
    r<{ stepId: string; queued: number }>(),
  ),
  /** `taskId`: only the turns on that task (all of them: earlier conversations too), e.g. the turns of T-2. */
  'sessions.get': method(
    z.strictObject({
      memberId: s.Id,
      taskId: s.Id.optional(),
      before: z.number().int().min(1).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.SessionPage>(),
  ),
  'sessions.list': method(z.strictObject({ ...ws }), r<s.SessionInfo[]>()),
  'sessions.interrupt': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  /** A new conversation for the member (a poisoned history keeps failing); old steps stay in the store and the export. */
  'sessions.reset': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  /** Restarts a member after an error: its agent process (ACP members) is stopped, the error cleared, the queue resumed. */
  'sessions.restart': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  /** The diff of what one turn changed (the step that carries `changes`). */
  /** The setup and run commands of a task's tree as last run (output kept), setup first. */
  'tasks.treeRuns': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun[]>()),
  /** Starts the workspace's run command in the task's tree (one at a time per task). */
  'tasks.run': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  /** Stops the task's running run command (its whole process tree). */
  'tasks.stopRun': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  /** Copies the listed files and runs the setup command again in the task's tree (after a failure, or a change). */
  'tasks.setupAgain': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  'sessions.changes': method(z.strictObject({ stepId: s.Id }), r<s.TaskDiff>()),
  /**
   * Undoes a turn that ran in its task's tree (stepId: the turn's first step): the tree goes back to where it was before
   * it, what is there now is kept aside in the tree (keptRef), the turn is marked undone and its member told at its
   * next turn. Only the latest turn in force in that tree; not while the member is in a turn (busy).
   */
  'sessions.undoTurn': method(z.strictObject({ stepId: s.Id }), r<s.UndoneTurn>()),
  'sessions.approve': method(
    z.strictObject({
      memberId: s.Id,
      callId: z.string().min(1).max(200),
      allow: z.boolean(),
      reason: z.string().max(2_000).optional(),
    }),
    r<s.SessionInfo>(),
  ),

  /** A member's approval rules and the team's (memberId null); without memberId, every rule of the workspace. */
  'approvalRules.list': method(z.strictObject({ ...ws, memberId: s.Id.optional() }), r<s.ApprovalRule[]>()),
  /** Adds a rule for one member, or for the team (memberId null). An identical rule is returned, not added twice. */
  'approvalRules.add': method(
    z.strictObject({ ...ws, memberId: s.Id.nullable(), rule: s.ApprovalRuleInput }),
    r<s.ApprovalRule>(),
  ),
  /**
   * Answers a waiting call with Allow and adds the rule it suggests (or `rule`) for the member or the team, so
   * the same kind of call runs without asking from now on. A call that suggests no rule (`suggestion.noRule`) is
   * refused with invalid_params unless `rule` is given; it still waits.
   */
  'sessions.allowAlways': method(
    z.strictObject({
      memberId: s.Id,
      callId: z.string().min(1).max(200),
      scope: z.enum(['member', 'team']),
      rule: s.ApprovalRuleInput.optional(),
    }),
    r<{ session: s.SessionInfo; rule: s.ApprovalRule }>(),
  ),
  'approvalRules.remove': method(z.strictObject({ ruleId: s.Id }), r<{ removed: true }>()),

  'export.decisionLog': method(
    z.strictObject({
      ...ws,
      format: z.enum(['madr', 'markdown', 'json']),
      outDir: pathText.optional(),
      /**
       * A folder of the repository, relative to it (the app's folder field); refused with folder_outside_repo when
       * absolute, with a `..` part, or leading outside the repository. Not with outDir.
       */
      folder: pathText.optional(),
      /** The layout of MADR files: strict MADR 4 (default), or what adr-tools or log4brains read. */
      flavour: z.enum(['madr', 'adr-tools', 'log4brains']).optional(),
      /** Plan the export and list its files, writing nothing (the same code path as the real export). */
      dryRun: z.boolean().optional(),
      /**
       * MADR files of Concord's that were changed since they were written (a status adr-tools rewrote, a hand
       * edit) are refused with file_edited, naming each file and its change; true overwrites them.
       */
      overwriteEdited: z.boolean().optional(),
    }),
    r<s.ExportResult>(),
  ),
  /**
   * The export as a zip to download (for `concord serve`, whose browser user may not see the server's checkout):
   * the same files the export would write, at their paths relative to the repository; nothing is written into the
   * repository. The zip is built in slices that leave the server answering, written to a file as it goes, and served
   * once at the answer's `url`.
   */
  'export.download': method(
    z.strictObject({
      ...ws,
      format: z.enum(['madr', 'markdown', 'json']),
      folder: pathText.optional(),
      flavour: z.enum(['madr', 'adr-tools', 'log4brains']).optional(),
    }),
    r<s.ExportDownload>(),
  ),
  'import.workspace': method(
    z.strictObject({ path: pathText, repoPath: pathText, name: z.string().trim().min(1).max(200).optional() }),
    r<s.Workspace>(),
  ),

  // Archive, not lose (issue 13): archived items leave the lists and pages; the store and the export keep them.
  /** Deciders (and you). Refused with member_busy while the member has a turn running, an approval waiting or messages queued. */
  'members.archive': method(z.strictObject({ memberId: s.Id, ...actor }), r<s.Member>()),
  'members.restore': method(z.strictObject({ memberId: s.Id, ...actor }), r<s.Member>()),
  'tasks.archive': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  'tasks.restore': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  /** Out of workspaces.list (its file stays); refused with member_busy while any of its members works. */
  'workspaces.archive': method(z.strictObject({ ...ws }), r<s.Workspace>()),
  'workspaces.restore': method(z.strictObject({ ...ws }), r<s.Workspace>()),
  /** The archived workspaces (for Restore on the welcome screen). */
  'workspaces.archived': method(z.strictObject({}), r<s.Workspace[]>()),
  /** The workspace's archived members and tasks, most recently archived first. */
  'archive.list': method(z.strictObject({ ...ws }), r<s.ArchivedItems>()),
  /** Full-text search over every member's session, newest first; the query is plain text (no query syntax). */
  'sessions.search': method(
    z.strictObject({ ...ws, query: noNul(z.string().max(500)), limit: z.number().int().min(1).max(200).optional() }),
    r<s.SearchHit[]>(),
  ),
  /**
   * Decisions (title, statement, rationale and their earlier revisions), tasks (title, spec, acceptance criteria)
   * and reports (summary, claims) whose words match, or whose key the query is (`R-6`, `d-1`: that one first).
   * Plain text, as sessions.search; newest first within each kind, up to `limit` of each.
   */
  'search.records': method(
    z.strictObject({ ...ws, query: noNul(z.string().max(500)), limit: z.number().int().min(1).max(50).optional() }),
    r<s.RecordHit[]>(),
  ),
  /** Runs a failed turn again: the message that started it is queued anew (first in line) and the member resumes. */
  'sessions.retry': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
} as const

export type Methods = typeof methods
export type MethodName = keyof Methods
export type Params<M extends MethodName> = z.input<Methods[M]['params']>
export type ParsedParams<M extends MethodName> = z.output<Methods[M]['params']>
export type Result<M extends MethodName> = Methods[M]['result']

/** Pushes from the main process. Every payload names its workspace so a client can filter. */
export interface Events {
  'workspace.opened': { workspace: s.Workspace }
  'member.changed': { workspaceId: string; member: s.Member }
  'decision.created': { workspaceId: string; decision: s.Decision }
  /** `impact` is compact (counts + first items; see Impact) and is the very object the edit's answer carries: serialized once. */
  'decision.changed': {
    workspaceId: string
    decision: s.Decision
    impact: s.Impact
    editorial: boolean
    reason: string
    actorId: string | null
  }
  'proposal.changed': { workspaceId: string; proposal: s.Proposal }
  /**
   * `readinessOnly`: nothing of the task moved, its readiness did (a report on it came in, or a decision its reports
   * rest on but it does not depend on changed); automatic turns ignore those (runtime/auto-turns.ts).
   */
  'task.changed': { workspaceId: string; task: s.Task; readinessOnly?: boolean }
  'report.submitted': { workspaceId: string; report: s.Report }
  /** Compact: the first ids and the counts (see NoticeSummary); consumers that need every id read the notice. */
  'notice.created': { workspaceId: string; notice: s.NoticeSummary }
  'session.state': { workspaceId: string; session: s.SessionInfo }
  'session.step': { workspaceId: string; memberId: string; step: s.Step }
  'session.delta': { workspaceId: string; memberId: string; stepId: string; text: string }
  /** The member's conversation started anew (sessions.reset): reload its steps. */
  'session.reset': { workspaceId: string; memberId: string }
  /** A task tree's setup or run command started, printed (at most a few times a second) or ended. */
  'task.treeRun': { workspaceId: string; taskId: string; run: s.TreeRun }
  /** A task's diff comments changed (added, deleted, sent, resolved by a delivery): the whole list. */
  'diffComments.changed': { workspaceId: string; taskId: string; comments: s.DiffComment[] }
}

export type EventName = keyof Events
/** A discriminated union over the event names: narrowing on `event` types `payload`. */
export type EventEnvelope<E extends EventName = EventName> = { [K in E]: { event: K; payload: Events[K] } }[E]

export type ApiResponse<T> = { ok: true; value: T } | { ok: false; error: import('./errors').ApiErrorShape }
