import type { MethodName, ParsedParams, Result } from '../../../shared/contract'
import type { Harness } from '../harness/harness'
import { acceptTask } from '../harness/acceptance'
import { createDecision, decisionHistory, getDecision, listDecisions, previewImpact, updateDecision } from '../harness/decisions'
import { createMember, listMembers, updateMember } from '../harness/members'
import { getMetrics, type TokenTotals } from '../harness/metrics'
import { toNotice } from '../harness/mappers'
import { acceptProposal, createProposal, listProposals, rejectProposal } from '../harness/proposals'
import { getReport, listReports, submitReport } from '../harness/reports'
import { acknowledgeTask, createTask, getTask, listTasks, setTaskStatus, updateTask } from '../harness/tasks'
import { memberRowOf } from '../harness/context'
import { updateWorkspaceSettings, workspaceSettings } from '../harness/workspace-settings'

export type Handler<M extends MethodName> = (params: ParsedParams<M>) => Result<M> | Promise<Result<M>>
/** Every method of the contract must have a handler: a missing one does not compile. */
export type Handlers = { [M in MethodName]: Handler<M> }
export type HarnessMethod = Exclude<MethodName, never>

export interface HandlerDeps {
  harness: Harness
  tokens?: (workspaceId: string) => TokenTotals
}

export function harnessHandlers({ harness: h, tokens }: HandlerDeps) {
  return {
    'workspaces.open': (p) => h.openWorkspace(p.repoPath, p.name),
    'workspaces.list': () => h.listWorkspaces(),
    'workspaces.settings': (p) => workspaceSettings(h.ctx(p.workspaceId)),
    'workspaces.update': (p) => updateWorkspaceSettings(h.ctx(p.workspaceId), p),

    'members.create': (p) => createMember(h.ctx(p.workspaceId), h.secrets, p),
    'members.update': (p) => updateMember(h.ctxOf('member', p.memberId, 'memberId'), h.secrets, p),
    'members.list': (p) => listMembers(h.ctx(p.workspaceId), h.secrets),

    'decisions.create': (p) => createDecision(h.ctx(p.workspaceId), p),
    'decisions.get': (p) => getDecision(h.ctxOf('decision', p.decisionId, 'decisionId'), p.decisionId),
    'decisions.list': (p) => listDecisions(h.ctx(p.workspaceId)),
    'decisions.history': (p) => decisionHistory(h.ctxOf('decision', p.decisionId, 'decisionId'), p.decisionId),
    'decisions.update': (p) => updateDecision(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'decisions.previewImpact': (p) => previewImpact(h.ctxOf('decision', p.decisionId, 'decisionId'), p),

    'proposals.create': (p) => createProposal(h.ctxOf('decision', p.decisionId, 'decisionId'), p),
    'proposals.accept': (p) => acceptProposal(h.ctxOf('proposal', p.proposalId, 'proposalId'), p),
    'proposals.reject': (p) => rejectProposal(h.ctxOf('proposal', p.proposalId, 'proposalId'), p),
    'proposals.list': (p) => listProposals(h.ctx(p.workspaceId), p.state),

    'tasks.create': (p) => createTask(h.ctx(p.workspaceId), p),
    'tasks.get': (p) => getTask(h.ctxOf('task', p.taskId, 'taskId'), p.taskId),
    'tasks.list': (p) => listTasks(h.ctx(p.workspaceId), p.assigneeId),
    'tasks.update': (p) => updateTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.setStatus': (p) => setTaskStatus(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.acknowledge': (p) => acknowledgeTask(h.ctxOf('task', p.taskId, 'taskId'), p),
    'tasks.accept': (p) => acceptTask(h.ctxOf('task', p.taskId, 'taskId'), p),

    'reports.submit': (p) => submitReport(h.ctxOf('task', p.taskId, 'taskId'), p),
    'reports.get': (p) => getReport(h.ctxOf('report', p.reportId, 'reportId'), p.reportId),
    'reports.list': (p) =>
      p.taskId ? listReports(h.ctxOf('task', p.taskId, 'taskId'), p.taskId) : listReports(h.ctx(p.workspaceId!)),

    'notices.list': (p) => {
      const ctx = h.ctxOf('member', p.memberId, 'memberId')
      const n = memberRowOf(ctx, p.memberId, 'memberId')
      return ctx.store.log.notices(n, p.pending ?? false).map((r) => toNotice(ctx.wsId, r))
    },
    'metrics.get': (p) => getMetrics(h.ctx(p.workspaceId), tokens?.(p.workspaceId)),
    'events.list': (p) => {
      const ctx = h.ctx(p.workspaceId)
      return ctx.store.log.events(p.after ?? 0, p.limit ?? 200).map((e) => ({ id: e.id, type: e.type, payload: JSON.parse(e.payload), createdAt: e.created_at }))
    },
  } satisfies Partial<Handlers>
}
