/**
 * Tools through which a member reads and changes the harness. Each goes through the same validated
 * API as the UI, acting as the member (its authority applies), so an agent can never do what the
 * contract refuses.
 */
import { z } from 'zod'
import type { MethodName, Params, Result } from '../../../../shared/contract'
import { keyPrefix, parseKey } from '../../../../shared/keys'
import { ReportKind, TaskStatus, Verdict } from '../../../../shared/schemas'
import { kinds, splitId } from '../../harness/ids'
import type { Decision, Report, Task } from '../../../../shared/schemas'
import { gitHead } from '../../platform/git'
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

type HTool<A> = ToolDefinition<A, HarnessToolContext>

const keyOrId = z.string().trim().min(1).max(80)
const decisionRef = keyOrId.describe('D-n or decision id')
const memberRef = keyOrId.describe('member id or name')

function tool<A>(
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

async function resolveMember(ctx: HarnessToolContext, ref: string, allowSelf = false): Promise<string> {
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

const decisionLine = (d: Decision) => `${d.key} v${d.version} [${d.status}] "${d.title}" (id ${d.id}): ${d.statement}`
const taskLine = (t: Task) => `${t.key} [${t.status}${t.flag ? `, ${t.flag}` : ''}] "${t.title}" (id ${t.id})`

/** A report as a member reads it: what it checked, what it says, and each claim with its verdict. */
function reportText(r: Report): string {
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

/* eslint-disable @typescript-eslint/no-explicit-any -- tools with different argument types in one list; each `run` only ever gets what its own `args` parsed */
export function harnessTools(): HTool<any>[] {
  const list: HTool<any>[] = []
  const add = <A>(t: HTool<A>, run: (a: A, ctx: HarnessToolContext) => Promise<string>) =>
    list.push({ ...t, run } as HTool<any>)
  /* eslint-enable @typescript-eslint/no-explicit-any */

  add(
    tool(
      'get_brief',
      'Your brief: your tasks with their flags and the current text of the decisions they depend on.',
      z.object({}),
    ),
    async (_a, ctx) => ctx.brief().text,
  )

  add(
    tool(
      'list_decisions',
      'All decisions of this workspace with their current version, status and statement.',
      z.object({}),
    ),
    async (_a, ctx) =>
      (await ctx.call('decisions.list', { workspaceId: ctx.workspaceId })).map(decisionLine).join('\n') ||
      '(no decisions yet)',
  )

  add(
    tool(
      'get_decision',
      'One decision: its current version, status, statement and rationale.',
      z.object({ decisionId: decisionRef }),
    ),
    async (a, ctx) => {
      const d = await ctx.call('decisions.get', { decisionId: resolveRef(ctx, a.decisionId, 'decision') })
      return `${decisionLine(d)}${d.rationale ? `\nRationale: ${d.rationale}` : ''}`
    },
  )

  add(
    tool(
      'propose_decision_change',
      'Propose a new statement for a decision. Nothing changes until a decider accepts the proposal.',
      z.object({
        decisionId: decisionRef,
        statement: z.string().trim().min(1).max(20_000),
        reason: z.string().max(5_000),
      }),
    ),
    async (a, ctx) => {
      const p = await ctx.call('proposals.create', {
        decisionId: resolveRef(ctx, a.decisionId, 'decision'),
        statement: a.statement,
        reason: a.reason,
        actorId: ctx.memberId,
        sourceMessageId: ctx.sourceStepId,
      })
      return `Proposal ${p.key} recorded for ${a.decisionId} (pending a decider).`
    },
  )

  add(
    tool(
      'update_decision',
      'Change a decision (deciders only). expectedVersion must be the version you read; a concurrent change is refused.',
      z.object({
        decisionId: keyOrId,
        expectedVersion: z.number().int().min(1),
        statement: z.string().trim().min(1).max(20_000),
        reason: z.string().max(5_000),
      }),
      true,
    ),
    async (a, ctx) => {
      const { decision, impact } = await ctx.call('decisions.update', {
        decisionId: resolveRef(ctx, a.decisionId, 'decision'),
        expectedVersion: a.expectedVersion,
        statement: a.statement,
        reason: a.reason,
        actorId: ctx.memberId,
        sourceMessageId: ctx.sourceStepId,
      })
      return `${decision.key} is now v${decision.version}. Flagged tasks: ${impact.tasks.map((t) => `${t.key} (${t.flag})`).join(', ') || 'none'}; reports with stale claims: ${impact.reports.map((r) => r.key).join(', ') || 'none'}.`
    },
  )

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

  add(
    tool(
      'submit_report',
      'Submit a report on a task: what you checked (commit, default HEAD), your verdict, and the claims you verified, each with the decisions it exercises. Its basis is the decision versions in your brief now. Ends your turn.',
      z.object({
        taskId: keyOrId,
        kind: ReportKind,
        verdict: Verdict,
        summary: z.string().max(50_000),
        claims: z
          .array(
            z.object({
              text: z.string().trim().min(1).max(5_000),
              decisionIds: z.array(keyOrId).max(50),
              verdict: Verdict.optional().describe('whether this behaviour held; omitted, the report verdict'),
            }),
          )
          .max(200),
        commit: z.string().optional(),
      }),
    ),
    async (a, ctx) => {
      const taskId = resolveRef(ctx, a.taskId, 'task')
      const task = await ctx.call('tasks.get', { taskId })
      // What this turn's tree is at: the delivered commit in a verification checkout, the worktree head for its assignee.
      const commit = a.commit ?? (await gitHead(ctx.workspaceRoot, ctx))
      if (!commit) throw new ToolError('invalid_arguments', 'no commit to report on: the repository has no commits')
      const versions = ctx.brief().decisionVersions
      const basis = task.links.map((l) => ({
        decisionId: l.decisionId,
        version: versions.get(l.decisionId) ?? l.currentVersion,
      }))
      const report = await ctx.call('reports.submit', {
        taskId,
        authorId: ctx.memberId,
        kind: a.kind,
        verdict: a.verdict,
        summary: a.summary,
        artifact: { commit },
        basis,
        claims: a.claims.map((c) => ({
          text: c.text,
          verdict: c.verdict,
          decisionIds: c.decisionIds.map((d) => resolveRef(ctx, d, 'decision')),
        })),
      })
      ctx.endTurn('report submitted')
      const keyOf = new Map(task.links.map((l) => [l.decisionId, l.decisionKey]))
      const basisText =
        report.basis.map((b) => `${keyOf.get(b.decisionId) ?? b.decisionId} v${b.version}`).join(', ') || 'none'
      return `Report ${report.key} submitted on ${task.key} (${report.verdict}, commit ${commit.slice(0, 10)}, basis ${basisText}; validity ${report.validity}).`
    },
  )

  add(
    tool(
      'submit_plan',
      'Submit your plan for a plan-first task (the brief says which): the steps you will take, the files you will change, how you will check it. The user approves it, asks for changes (you plan again) or rejects it; you write code only once it is approved. Ends your turn.',
      z.object({ taskId: keyOrId, plan: z.string().max(50_000) }),
    ),
    async (a, ctx) => {
      const { plan, task } = await ctx.call('plans.submit', {
        taskId: resolveRef(ctx, a.taskId, 'task'),
        plan: a.plan,
        actorId: ctx.memberId,
      })
      ctx.endTurn('plan submitted')
      return `Plan ${plan.n} for ${task.key} submitted; it waits for the user's review. Write no code until it is approved.`
    },
  )

  add(
    tool(
      'list_reports',
      "A task's reports, newest last: id, kind, verdict, summary and validity (stale: a decision it rests on changed).",
      z.object({ taskId: keyOrId }),
    ),
    async (a, ctx) =>
      (await ctx.call('reports.list', { taskId: resolveRef(ctx, a.taskId, 'task') }))
        .map((r) => `${r.key} (id ${r.id}) ${r.kind} ${r.verdict} [${r.validity}]: ${r.summary}`)
        .join('\n') || '(no reports on this task yet)',
  )

  add(
    tool(
      'get_report',
      'One report: its summary, its claims with their verdicts, and the artifact (commit) it checked.',
      z.object({ reportId: keyOrId.describe('R-n or report id') }),
    ),
    async (a, ctx) => reportText(await ctx.call('reports.get', { reportId: resolveRef(ctx, a.reportId, 'report') })),
  )

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

  return list
}

/** Which harness tools a member may see, by authority. */
export function toolAllowed(name: string, authority: HarnessToolContext['authority']): boolean {
  if (name === 'update_decision') return authority === 'decider'
  if (name === 'propose_decision_change') return authority !== 'observer'
  return true
}
