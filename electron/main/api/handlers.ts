import { followUpTask } from '../harness/tasks/follow-up'
import type { MethodName, ParsedParams, Result } from '../../../shared/contract'
import type { Harness } from '../harness/harness'
import { acceptTask } from '../harness/tasks/acceptance'
import {
  createDecision,
  getDecision,
  listDecisions,
  previewImpact,
  updateDecision,
} from '../harness/decisions/decisions'
import { createMember, listMembers, updateMember } from '../harness/members/members'
import { copyTeam, teamSources } from '../harness/members/team-copy'
import { getMetrics } from '../harness/workspace/metrics'
import { toNotice } from '../harness/mappers'
import { acceptProposal, createProposal, listProposals, rejectProposal } from '../harness/decisions/proposals'
import { getReport, listReports, submitReportAtCommit } from '../harness/reports/reports'
import { acknowledgeTask, createTask, getTask, listTasks, updateTask } from '../harness/tasks/tasks'
import { moveTask, type TaskStarted } from '../harness/tasks/task-status'
import { memberRowOf, taskRow } from '../harness/context'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import { openWorkspace, updateWorkspace } from '../harness/workspace/workspace-open'
import { makeFirstCommit } from '../harness/workspace/first-commit'
import { setupAgain, startRun, stopRun, treeRuns } from '../harness/workspace/tree-runs'
import { taskDiff, turnDiff } from '../harness/tasks/task-diff'
import {
  addDiffComment,
  deleteDiffComment,
  installDiffComments,
  listDiffComments,
} from '../harness/tasks/diff-comments'
import { mergePreview } from '../harness/tasks/merge-preview'
import { listAttempts, tryWith } from '../harness/tasks/attempts'
import { configureForge, openPullRequest, refreshPullRequest } from '../harness/tasks/pull-request'
import { installMergeQueue, mergeTask, unqueueMerge } from '../harness/tasks/merge-queue'
import { updateBranch, type QueueTurn } from '../harness/tasks/task-update'
import { revertDecision } from '../harness/decisions/revert'
import { decisionHistory } from '../harness/decisions/history'
import { impactPage } from '../harness/decisions/impact'
import { getReports, getTasks, pageReports, pageTasks } from '../harness/pages'
import { listAutoTurns, sentNotices } from '../harness/workspace/figure-items'

export type Handler<M extends MethodName> = (params: ParsedParams<M>) => Result<M> | Promise<Result<M>>
/** Every method of the contract must have a handler: a missing one does not compile. */
export type Handlers = { [M in MethodName]: Handler<M> }

export interface HandlerDeps {
  harness: Harness
  /** A task moved to in progress (not by its own assignee): the runtime starts the assignee's turn on it. */
  onTaskStarted?: TaskStarted
  /** A use case asks for an automatic turn (tasks.updateBranch): the runtime queues it. */
  queueTurn?: QueueTurn
}

export function harnessHandlers({ harness: h, onTaskStarted, queueTurn }: HandlerDeps) {
  // Verified merges: the queue moves on the events that can move it, with the runtime's automatic turns.
  installMergeQueue(h, queueTurn)
  installDiffComments(h)
  return {
    'workspaces.open': (p) => openWorkspace(h, p),
    'workspaces.list': () => h.listWorkspaces(),
    'workspaces.settings': (p) => workspaceSettings(h.ctx(p.workspaceId)),
    'workspaces.update': (p) => updateWorkspace(h, h.ctx(p.workspaceId), p),
    'forge.configure': (p) => configureForge(h, h.ctx(p.workspaceId), p),
    'workspaces.firstCommit': (p) => makeFirstCommit(h, h.ctx(p.workspaceId), p),

    'members.create': (p) => createMember(h.ctx(p.workspaceId), h.secrets, p),
    'members.update': (p) => updateMember(h.ctxOf('member', p.memberId, 'memberId'), h.secrets, p),
    'members.list': (p) => listMembers(h.ctx(p.workspaceId), h.secrets),
    'members.teams': (p) => teamSources(h, h.ctx(p.workspaceId)),
    'members.copyTeam': (p) => copyTeam(h, h.ctx(p.workspaceId), p.fromWorkspaceId),

    'decisions.create': (p) => createDecision(h.ctx(p.workspaceId), p),
    'decisions.get': (p) => getDecision(h.ctxOf('decision', p.decisionId, 'decisionId'), p.decisionId),
    'decisions.list': (p) => listDecisions(h.ctx(p.workspaceId)),
    'decisions.history': (p) => decisionHistory(h.ctxOf('decision', p.decisionId, 'decisionId'), p.decisionId),
    'decisions.update': (p) => updateDecision(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'decisions.revert': (p) => revertDecision(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'decisions.impact': (p) => impactPage(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'decisions.previewImpact': (p) => previewImpact(h.ctxOf('decision', p.decisionId, 'decisionId'), p),

    'proposals.create': (p) => createProposal(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'proposals.accept': (p) => acceptProposal(h.ctxOf('proposal', p.proposalId, 'proposalId'), p),
    'proposals.reject': (p) => rejectProposal(h.ctxOf('proposal', p.proposalId, 'proposalId'), p),
    'proposals.list': (p) => listProposals(h.ctx(p.workspaceId), p.state),

    'tasks.create': (p) => createTask(h.ctx(p.workspaceId), p),
    'tasks.get': (p) => getTask(h.ctxOf('task', p.taskId, 'taskId'), p.taskId),
    'tasks.list': (p) => listTasks(h.ctx(p.workspaceId), p.assigneeId),
    'tasks.getMany': (p) => getTasks(h, p.ids),
    'tasks.page': (p) => pageTasks(h.ctx(p.workspaceId), p),
    'tasks.update': (p) => updateTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.setStatus': (p) => moveTask(h, h.ctxOf('task', p.taskId, 'taskId'), p, onTaskStarted),
    'tasks.acknowledge': (p) => acknowledgeTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.accept': (p) => acceptTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.diff': (p) => taskDiff(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'diffComments.add': (p) => addDiffComment(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'diffComments.list': (p) => listDiffComments(h, h.ctxOf('task', p.taskId, 'taskId'), p.taskId),
    'diffComments.delete': (p) => deleteDiffComment(h.ctxOf('comment', p.commentId, 'commentId'), p.commentId),
    'tasks.merge': (p) => mergeTask(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.unqueueMerge': (p) => unqueueMerge(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.updateBranch': (p) => updateBranch(h, h.ctxOf('task', p.taskId, 'taskId'), p, queueTurn),
    'tasks.mergePreview': (p) => mergePreview(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.openPullRequest': (p) => openPullRequest(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.refreshPullRequest': (p) => refreshPullRequest(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.tryWith': (p) => tryWith(h, h.ctxOf('task', p.taskId, 'taskId'), p, onTaskStarted),
    'tasks.attempts': (p) => listAttempts(h, h.ctxOf('task', p.taskId, 'taskId'), p.taskId),
    'tasks.followUp': (p) => followUpTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.treeRuns': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      return treeRuns(h, ctx, taskRow(ctx, p.taskId).id)
    },
    'tasks.run': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      return startRun(h, ctx, taskRow(ctx, p.taskId).id)
    },
    'tasks.stopRun': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      return stopRun(ctx, taskRow(ctx, p.taskId).id)
    },
    'tasks.setupAgain': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      return setupAgain(h, ctx, taskRow(ctx, p.taskId).id)
    },
    'sessions.changes': (p) => turnDiff(h, h.ctxOf('step', p.stepId, 'stepId'), p.stepId),

    'reports.submit': (p) => submitReportAtCommit(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'reports.get': (p) => getReport(h.ctxOf('report', p.reportId, 'reportId'), p.reportId),
    'reports.list': (p) =>
      p.taskId ? listReports(h.ctxOf('task', p.taskId, 'taskId'), p.taskId) : listReports(h.ctx(p.workspaceId!)),

    'reports.getMany': (p) => getReports(h, p.ids),
    'reports.page': (p) => pageReports(h.ctx(p.workspaceId), p),

    'notices.list': (p) => {
      const ctx = h.ctxOf('member', p.memberId, 'memberId')
      const n = memberRowOf(ctx, p.memberId, 'memberId')
      return ctx.store.log.notices(n, p.pending ?? false).map((r) => toNotice(ctx.wsId, ctx.store, r))
    },
    'metrics.get': (p) => getMetrics(h.ctx(p.workspaceId)),
    'notices.sent': (p) => sentNotices(h.ctx(p.workspaceId), p),
    'autoTurns.list': (p) => listAutoTurns(h.ctx(p.workspaceId), p),
    'events.list': (p) => {
      const ctx = h.ctx(p.workspaceId)
      return ctx.store.log
        .events(p.after ?? 0, p.limit ?? 200)
        .map((e) => ({ id: e.id, type: e.type, payload: JSON.parse(e.payload) as unknown, createdAt: e.created_at }))
    },
  } satisfies Partial<Handlers>
}
