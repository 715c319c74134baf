/** The contract's handlers of tasks: their records, their trees and runs, their diffs, merges and pull requests. */
import type { Harness } from '../harness/harness'
import { taskRow } from '../harness/context'
import { stepImage } from '../harness/members/step-images'
import { acceptTask } from '../harness/tasks/acceptance'
import { listAttempts, tryWith } from '../harness/tasks/attempts'
import { addDiffComment, deleteDiffComment, listDiffComments } from '../harness/tasks/diff-comments'
import { followUpTask } from '../harness/tasks/follow-up'
import { mergePreview } from '../harness/tasks/merge-preview'
import { mergeTask, unqueueMerge } from '../harness/tasks/merge-queue'
import { openPullRequest, refreshPullRequest } from '../harness/tasks/pull-request'
import { taskDiff, turnDiff } from '../harness/tasks/task-diff'
import { moveTask } from '../harness/tasks/task-status'
import { updateBranch } from '../harness/tasks/task-update'
import { acknowledgeTask, createTask, getTask, listTasks, updateTask } from '../harness/tasks/tasks'
import { setupAgain, startRun, stopRun, treeRuns } from '../harness/workspace/tree-runs'
import { getTasks, pageTasks } from '../harness/pages'
import type { HandlerDeps, Handlers } from './handler-types'

export function taskHandlers(h: Harness, { onTaskStarted, queueTurn }: Omit<HandlerDeps, 'harness'>) {
  return {
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
    'sessions.image': (p) => stepImage(h.ctxOf('step', p.stepId, 'stepId'), p.stepId, p.index),
  } satisfies Partial<Handlers>
}
