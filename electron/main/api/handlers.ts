import {
  createDecision,
  getDecision,
  listDecisions,
  previewImpact,
  updateDecision,
} from '../harness/decisions/decisions'
import { createMember, listMembers, updateMember } from '../harness/members/members'
import { copyTeam, teamSources } from '../harness/members/team-copy'
import { memberMcpServers } from '../harness/workspace/member-mcp-servers'
import { getMetrics } from '../harness/workspace/metrics'
import { acceptProposal, createProposal, listProposals, rejectProposal } from '../harness/decisions/proposals'
import { getReport, listReports, submitReportAtCommit } from '../harness/reports/reports'
import { listEvents, listNotices } from '../harness/workspace/log-lists'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import { openWorkspace, updateWorkspace } from '../harness/workspace/workspace-open'
import { makeFirstCommit } from '../harness/workspace/first-commit'
import { installDiffComments } from '../harness/tasks/diff-comments'
import { configureForge } from '../harness/tasks/pull-request'
import { installMergeQueue } from '../harness/tasks/merge-queue'
import { revertDecision } from '../harness/decisions/revert'
import { decisionHistory } from '../harness/decisions/history'
import { impactPage } from '../harness/decisions/impact'
import { getReports, pageReports } from '../harness/pages'
import { listAutoTurns, sentNotices } from '../harness/workspace/figure-items'

import type { HandlerDeps, Handlers } from './handler-types'
import { taskHandlers } from './task-handlers'

export type { Handler, HandlerDeps, Handlers } from './handler-types'

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
    'members.mcpServers': (p) => memberMcpServers(h, h.ctxOf('member', p.memberId, 'memberId'), p.memberId),
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

    ...taskHandlers(h, { onTaskStarted, queueTurn }),

    'reports.submit': (p) => submitReportAtCommit(h, h.ctxOf('task', p.taskId, 'taskId'), p),
    'reports.get': (p) => getReport(h.ctxOf('report', p.reportId, 'reportId'), p.reportId),
    'reports.list': (p) =>
      p.taskId ? listReports(h.ctxOf('task', p.taskId, 'taskId'), p.taskId) : listReports(h.ctx(p.workspaceId!)),

    'reports.getMany': (p) => getReports(h, p.ids),
    'reports.page': (p) => pageReports(h.ctx(p.workspaceId), p),

    'notices.list': (p) => listNotices(h.ctxOf('member', p.memberId, 'memberId'), p),
    'metrics.get': (p) => getMetrics(h.ctx(p.workspaceId)),
    'notices.sent': (p) => sentNotices(h.ctx(p.workspaceId), p),
    'autoTurns.list': (p) => listAutoTurns(h.ctx(p.workspaceId), p),
    'events.list': (p) => listEvents(h.ctx(p.workspaceId), p),
  } satisfies Partial<Handlers>
}
