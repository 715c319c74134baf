/** The harness tools on decisions: read them, propose a change, change one (deciders). */
import { z } from 'zod'
import { decisionLine, decisionRef, keyOrId, resolveRef, tool, type AddTool } from './harness-tool-kit'

/** Decisions: listed, read, a change proposed, a change made. */
export function addDecisionTools(add: AddTool): void {
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
}
