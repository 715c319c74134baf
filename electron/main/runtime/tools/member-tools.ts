/** The harness tools about the member itself and its team: its brief, messages, delegation, the human, its steps. */
import { z } from 'zod'
import { ToolError } from '../../platform/tool-error'
import { memberRef, resolveMember, tool, type AddTool } from './harness-tool-kit'

/** get_brief: first in the list, as the brief is first in a turn. */
export function addBriefTool(add: AddTool): void {
  add(
    tool(
      'get_brief',
      'Your brief: your tasks with their flags and the current text of the decisions they depend on.',
      z.object({}),
    ),
    async (_a, ctx) => ctx.brief().text,
  )
}

/** Messages to members, delegation, a question to the human, a long tool output read again. */
export function addMemberTools(add: AddTool): void {
  add(
    tool(
      'message_member',
      'Send a message to another member (it is queued in their inbox; you do not wait).',
      z.object({ memberId: memberRef, text: z.string().trim().min(1).max(50_000) }),
    ),
    async (a, ctx) => {
      const to = await resolveMember(ctx, a.memberId)
      await ctx.message(to, a.text)
      return `Message queued for ${a.memberId}.`
    },
  )

  add(
    tool(
      'delegate',
      'Give another member a task and wait for its answer (it runs a turn of its own; its final answer is returned).',
      z.object({ memberId: memberRef, task: z.string().trim().min(1).max(50_000) }),
    ),
    async (a, ctx) => ctx.delegate(await resolveMember(ctx, a.memberId), a.task, ctx.signal),
  )

  add(
    tool(
      'ask_human',
      'Ask the human a question. Ends your turn; their answer arrives as the next message.',
      z.object({ question: z.string().trim().min(1).max(20_000) }),
    ),
    async (a, ctx) => {
      ctx.endTurn('asked the human')
      return `Question for the human: ${a.question}`
    },
  )

  add(
    tool(
      'read_tool_output',
      'Read the full output of an earlier tool call whose output was cut in your view.',
      z.object({
        stepId: z.string().min(1).max(80),
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(100_000).optional(),
      }),
    ),
    async (a, ctx) => {
      const text = ctx.stepText(a.stepId)
      if (text === null) throw new ToolError('not_found', `no tool output ${a.stepId} in this session`)
      const offset = a.offset ?? 0
      const limit = a.limit ?? 20_000
      const part = text.slice(offset, offset + limit)
      return offset + limit < text.length
        ? `${part}\n[${text.length - offset - limit} more characters; offset ${offset + limit}]`
        : part
    },
  )
}
