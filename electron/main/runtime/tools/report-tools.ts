/** The harness tools on what a member submits and reads back: reports and plans. */
import { z } from 'zod'
import { ReportKind, Verdict } from '../../../../shared/schemas'
import { gitHead } from '../../platform/git'
import { ToolError } from '../../platform/tool-error'
import { keyOrId, reportText, resolveRef, tool, type AddTool } from './harness-tool-kit'

/** What ends a turn with evidence: a report on a task, or a plan for a plan-first task. */
export function addSubmitTools(add: AddTool): void {
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
}

/** A task's reports listed, one read in full. */
export function addReportReadTools(add: AddTool): void {
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
}
