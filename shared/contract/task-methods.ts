/** The contract's methods for tasks: their lifecycle, branch and tree, diff comments and plans. */
import { z } from 'zod'
import * as s from '../schemas'
import { method, pathText, r, actor, ws, page } from './method'

/** What a task says and depends on: set at creation, changed by tasks.update. */
const taskFields = {
  spec: z.string().max(50_000).optional(),
  acceptanceCriteria: z.string().max(20_000).optional(),
  assigneeId: s.Id.nullable().optional(),
  decisionIds: z.array(s.Id).max(200).optional(),
  blockedBy: z.array(s.Id).max(200).optional(),
  requiredReports: z.array(s.ReportKind).max(3).optional(),
}

export const taskMethods = {
  'tasks.create': method(
    z.strictObject({
      ...ws,
      title: z.string().trim().min(1, 'must not be empty').max(300),
      ...taskFields,
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
      ...page,
    }),
    r<s.TaskPage>(),
  ),
  'tasks.update': method(
    z.strictObject({
      taskId: s.Id,
      title: z.string().trim().min(1).max(300).optional(),
      ...taskFields,
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
  /** The diff of what one turn changed (the step that carries `changes`). */
  /** The setup and run commands of a task's tree as last run (output kept), setup first. */
  'tasks.treeRuns': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun[]>()),
  /** Starts the workspace's run command in the task's tree (one at a time per task). */
  'tasks.run': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  /** Stops the task's running run command (its whole process tree). */
  'tasks.stopRun': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  /** Copies the listed files and runs the setup command again in the task's tree (after a failure, or a change). */
  'tasks.setupAgain': method(z.strictObject({ taskId: s.Id }), r<s.TreeRun>()),
  'tasks.archive': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
  'tasks.restore': method(z.strictObject({ taskId: s.Id, ...actor }), r<s.Task>()),
} as const
