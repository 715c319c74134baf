/** The harness tools on tasks: create one, move it, acknowledge a change. */
import { z } from 'zod'
import { TaskStatus } from '../../../../shared/schemas'
import { gitHead } from '../../platform/git'
import { ToolError } from '../../platform/tool-error'
import { keyOrId, resolveMember, resolveRef, taskLine, tool, type AddTool } from './harness-tool-kit'

/** Tasks: created, moved between statuses, acknowledged after a decision changed. */
export function addTaskTools(add: AddTool): void {
  add(
    tool(
      'create_task',
      'Create a task that depends on decisions (their current versions are pinned).',
      z.object({
        title: z.string().trim().min(1).max(300),
        spec: z.string().max(50_000).optional(),
        assigneeId: z.string().optional().describe('member id or name'),
        decisionIds: z.array(keyOrId).max(50).optional(),
      }),
      true,
    ),
    async (a, ctx) => {
      const t = await ctx.call('tasks.create', {
        workspaceId: ctx.workspaceId,
        title: a.title,
        spec: a.spec,
        assigneeId: a.assigneeId ? await resolveMember(ctx, a.assigneeId, true) : undefined,
        decisionIds: a.decisionIds?.map((d) => resolveRef(ctx, d, 'decision')),
        actorId: ctx.memberId,
      })
      return `Created ${taskLine(t)}.`
    },
  )

  add(
    tool(
      'update_task_status',
      'Move a task: todo, in_progress, delivered (records the repository HEAD as the delivered artifact), blocked or cancelled.',
      z.object({
        taskId: keyOrId,
        status: TaskStatus.exclude(['accepted']),
        commit: z.string().optional(),
      }),
      // Cancelling ends work others may depend on: under `ask` the human sees it first.
      (a) => a.status === 'cancelled',
    ),
    async (a, ctx) => {
      const taskId = resolveRef(ctx, a.taskId, 'task')
      let artifact: { commit: string } | undefined
      // A task with its own branch delivers its worktree's head (the core refuses uncommitted changes); elsewhere HEAD.
      if (a.status === 'delivered' && (a.commit || !(await ctx.call('tasks.get', { taskId })).branch)) {
        const commit = a.commit ?? (await gitHead(ctx.workspaceRoot, ctx))
        if (!commit)
          throw new ToolError('invalid_arguments', 'no commit to deliver: commit your work first (git_commit)')
        artifact = { commit }
      }
      const t = await ctx.call('tasks.setStatus', { taskId, status: a.status, artifact, actorId: ctx.memberId })
      const delivered = t.status === 'delivered' && t.artifact?.commit
      return `${taskLine(t)}${delivered ? ` delivered at ${delivered.slice(0, 10)}` : ''}.`
    },
  )

  add(
    tool(
      'acknowledge_task',
      'Confirm you have re-aligned a flagged task with the current decisions.',
      z.object({ taskId: keyOrId }),
    ),
    async (a, ctx) =>
      `${taskLine(await ctx.call('tasks.acknowledge', { taskId: resolveRef(ctx, a.taskId, 'task'), actorId: ctx.memberId }))} acknowledged.`,
  )
}
