import type { Harness } from '../harness/harness'
import { commentsMessage, markCommentsSent } from '../harness/tasks/diff-comments'
import type { Runtime } from '../runtime/runtime'
import type { Handlers } from './handlers'

/** diffComments.send: the drafts go to the assignee the way a message from you does (sessions.send), then are sent. */
export function commentHandlers(h: Harness, runtime: Runtime): Pick<Handlers, 'diffComments.send'> {
  return {
    'diffComments.send': (p) => {
      const ctx = h.ctxOf('task', p.taskId, 'taskId')
      const message = commentsMessage(ctx, p.taskId)
      const { stepId } = runtime.send({ memberId: message.memberId, text: message.text, taskId: message.taskId })
      const comments = markCommentsSent(ctx, p.taskId, message.commentIds)
      return { stepId, sent: message.commentIds.length, comments }
    },
  }
}
