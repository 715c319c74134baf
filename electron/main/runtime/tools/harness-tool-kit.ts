/**
 * What the harness tools (harness-tools.ts) are built from: the context a call runs in, the way a tool is declared
 * and added, and the references and lines they share (a key or id resolved in the member's workspace, a decision,
 * task or report as a member reads it).
 */
import { z } from 'zod'
import type { MethodName, Params, Result } from '../../../../shared/contract'
import { keyPrefix, parseKey } from '../../../../shared/keys'
import { kinds, splitId } from '../../harness/ids'
import type { Decision, Report, Task } from '../../../../shared/schemas'
import { defineTool } from './tool-schema'
import { ToolError } from '../../platform/tool-error'
import type { ToolContext, ToolDefinition } from './types'

export interface HarnessToolContext extends ToolContext {
  workspaceId: string
  memberId: string
  authority: 'observer' | 'proposer' | 'decider'
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  /** The brief as the member last saw it (for get_brief) and the decision versions in it (a report's basis). */
  brief(): { text: string; decisionVersions: Map<string, number> }
  /** The full text of one of this session's steps (read_tool_output). */
  stepText(stepId: string): string | null
  message(toMemberId: string, text: string): Promise<void>
  delegate(toMemberId: string, task: string, signal: AbortSignal): Promise<string>
  /** The model step (assistant message) that asked for this call: where an agent's decision change was made. */
  sourceStepId: string
  /** Ends the turn after this batch of tool calls (a report was submitted, or the human was asked). */
  endTurn(reason: string): void
}

export type HTool<A> = ToolDefinition<A, HarnessToolContext>

export const keyOrId = z.string().trim().min(1).max(80)
export const decisionRef = keyOrId.describe('D-n or decision id')
export const memberRef = keyOrId.describe('member id or name')

export function tool<A>(
  name: string,
  description: string,
  args: z.ZodType<A>,
  needsApproval: HTool<A>['needsApproval'] = false,
): HTool<A> {
  return defineTool<A, HarnessToolContext>({ name, description, args, needsApproval, run: async () => '' })
}

type RefKind = 'decision' | 'task' | 'report'

/**
 * Accepts a key (D-3, T-2, R-1) or a full id, and only within the member's own workspace: another
 * workspace's id is not found from here, whatever the member was told.
 */
export function resolveRef(ctx: Pick<HarnessToolContext, 'workspaceId'>, ref: string, kind: RefKind): string {
  const text = ref.trim()
  const keyLetter = keyPrefix[kind]
  const idLetter = kinds[kind]
  const key = parseKey(text, { ignoreCase: true })
  if (key) {
    if (key.kind !== kind)
      throw new ToolError('invalid_arguments', `${ref} is not a ${kind} (${kind} keys look like ${keyLetter}-1)`)
    return `${ctx.workspaceId}-${idLetter}${key.n}`
  }
  const id = splitId(text)
  if (!id || id.letter !== idLetter)
    throw new ToolError('invalid_arguments', `'${ref}' is neither a ${kind} key (${keyLetter}-n) nor a ${kind} id`)
  if (id.workspaceId !== ctx.workspaceId)
    throw new ToolError('not_found', `there is no ${kind} ${ref} in this workspace`)
  return text
}

export async function resolveMember(ctx: HarnessToolContext, ref: string, allowSelf = false): Promise<string> {
  const members = await ctx.call('members.list', { workspaceId: ctx.workspaceId })
  const found = members.find((m) => m.id === ref || m.name.toLowerCase() === ref.trim().toLowerCase())
  if (!found)
    throw new ToolError(
      'not_found',
      `no member '${ref}'; members: ${members.map((m) => `${m.name} (${m.id})`).join(', ')}`,
    )
  if (found.id === ctx.memberId && !allowSelf) throw new ToolError('invalid_arguments', 'that is you')
  return found.id
}

export const decisionLine = (d: Decision) =>
  `${d.key} v${d.version} [${d.status}] "${d.title}" (id ${d.id}): ${d.statement}`
export const taskLine = (t: Task) => `${t.key} [${t.status}${t.flag ? `, ${t.flag}` : ''}] "${t.title}" (id ${t.id})`

/** A report as a member reads it: what it checked, what it says, and each claim with its verdict. */
export function reportText(r: Report): string {
  const artifact = [
    r.artifact.commit && `commit ${r.artifact.commit}`,
    r.artifact.digest && `digest ${r.artifact.digest}`,
  ]
    .filter(Boolean)
    .join(', ')
  const claims = r.claims.map((c, i) => `  ${i + 1}. [${c.verdict}${c.state === 'stale' ? ', stale' : ''}] ${c.text}`)
  return [
    `${r.key} (id ${r.id}) ${r.kind} ${r.verdict} [${r.validity}] on ${artifact || 'no artifact'}`,
    `Summary: ${r.summary}`,
    claims.length ? `Claims:\n${claims.join('\n')}` : 'Claims: none',
  ].join('\n')
}

/** Adds a declared tool with the function that runs it to a list (harnessTools). */
export type AddTool = <A>(t: HTool<A>, run: (a: A, ctx: HarnessToolContext) => Promise<string>) => void
