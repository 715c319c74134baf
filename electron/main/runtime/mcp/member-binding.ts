/**
 * What both MCP bindings share (app-binding.ts in the app, api/concord-mcp/standalone.ts without it): one builder,
 * their differences its parameters. Notices queued for the member are delivered with the next Concord tool
 * result (the agent sees a decision change at its next step, not only at its next prompt), and recorded as
 * a notice step in its session like the built-in loop does.
 */
import { randomUUID } from 'node:crypto'
import { memberRowOf, type Ctx } from '../../harness/context'
import { now } from '../../harness/ids'
import type { ApprovalPolicy } from '../../harness/members/approval-policy'
import { rulesFor } from '../../harness/members/approval-rules'
import type { MemberRow } from '../../harness/rows'
import type { SandboxPolicy } from '../../platform/sandbox-policy'
import { ToolError } from '../../platform/tool-error'
import { buildBrief } from '../brief'
import { quiet, writeStep, type StepSink } from '../step-writer'
import type { HarnessToolContext } from '../tools/harness-tools'
import type { McpBinding, McpCall } from './server'

export function takeNotices(
  ctx: Ctx,
  memberRowId: number,
  turnId: number | null,
  recordStep = true,
): { text: string; stepId: number | null } | null {
  const pending = ctx.store.log.notices(memberRowId, true)
  if (!pending.length) return null
  const stepId = ctx.store.transaction(() => {
    ctx.store.log.markDelivered(memberRowId, pending.at(-1)!.id, now())
    // Under ACP the app records the notice step once the tool call's result reaches it: written here, it could
    // land before the app has recorded the tool call itself.
    if (!recordStep) return null
    const text = pending.map((p) => p.text).join('\n\n')
    // Announced by the caller, after this transaction.
    return writeStep(ctx.store, quiet, {
      member_id: memberRowId,
      turn_id: turnId,
      kind: 'notice',
      status: 'done',
      text,
      started_at: now(),
      ended_at: now(),
    })
  })
  const text = [
    '## Notices from Concord since your last step (read these first)',
    ...pending.map((n) => `- ${n.text.replace(/\n/g, '\n  ')}`),
  ].join('\n')
  return { text, stepId }
}

/** How one MCP binding differs from the other (app-binding.ts inside the app, api/concord-mcp/standalone.ts without). */
export interface MemberBindingSpec {
  ctx: () => Ctx
  memberId: string
  call: HarnessToolContext['call']
  /** The repository, for a call made outside any turn. */
  repoPath: () => string
  /** The turn the agent is in, else the one it was last in; null before its first (or with no app to run one). */
  turn: () => AgentTurnState | null
  /** The member's policy for its calls, from its row as it is now. */
  approval: (member: MemberRow) => ApprovalPolicy
  /** The member's approval rules and the team's apply (else the policy alone decides). */
  rules: boolean
  /** Queues a message from this member. */
  message: (to: string, text: string) => void
  /** Puts a call to the human; null when no one is there to ask. */
  ask: (name: string, argumentsText: string) => Promise<boolean | null>
  /** The way out told with a call refused for want of someone to ask. */
  refusal: string
  /** Where the calls and the notice steps are recorded and announced; null: the ACP turn records them. */
  record: StepSink | null
}

/** The turn an ACP agent is in (or was last in): the tree it works in and the policy that applies. */
export interface AgentTurnState {
  /** The turn's tree: the task's worktree, a read-only checkout, or the repository. */
  root: string
  approval: ApprovalPolicy
  sandbox?: SandboxPolicy
  /** Aborted when the turn is interrupted. */
  signal: AbortSignal
  /** Run before each of Concord's tools (a runner's tree brought back: runner/remote-turn.ts); throws to refuse. */
  beforeTool?: () => Promise<void>
}

/** Concord's tools served over MCP as one member: the one builder of both bindings. */
export function memberBinding(spec: MemberBindingSpec): McpBinding {
  const { ctx, memberId, record } = spec
  const rowId = memberRowOf(ctx(), memberId, 'memberId')
  const member = () => {
    const row = ctx().store.members.get(rowId)
    if (!row) throw new ToolError('not_found', `member ${memberId} no longer exists`)
    return row
  }
  return {
    authority: member().authority,
    get approval() {
      return spec.approval(member())
    },
    ...(spec.rules ? { rules: () => rulesFor(ctx(), rowId) } : {}),
    prepare: async () => {
      await spec.turn()?.beforeTool?.()
    },
    context: (): HarnessToolContext => {
      const turn = spec.turn()
      return {
        workspaceRoot: turn?.root ?? spec.repoPath(),
        signal: turn?.signal ?? new AbortController().signal,
        ...(turn?.sandbox ? { sandbox: turn.sandbox } : {}),
        workspaceId: ctx().wsId,
        memberId,
        authority: member().authority,
        call: spec.call,
        // Rebuilt per call: the basis of a report is the decisions as they are now.
        brief: () => buildBrief(ctx(), member(), []),
        stepText: () => null,
        message: async (to, text) => spec.message(to, text),
        delegate: async () => {
          throw new ToolError('unsupported', 'delegate is not offered over MCP')
        },
        sourceStepId: '',
        endTurn: () => {},
      }
    },
    approve: async (c) => {
      const allowed = await spec.ask(c.name, c.argumentsText)
      if (allowed !== null) return allowed
      throw new ToolError(
        'approval_required',
        `${c.name} needs the human's approval under this member's policy (ask)${spec.refusal}`,
      )
    },
    // Under ACP the turn records the delivered notices once the tool call's result reaches it (see takeNotices).
    afterCall: () => {
      const taken = takeNotices(ctx(), rowId, null, record !== null)
      const row = record && taken?.stepId ? ctx().store.steps.get(taken.stepId) : undefined
      if (record && row) record(row)
      return taken?.text ?? ''
    },
    ...(record ? { record: (c, text, ok) => recordCall(ctx(), record, rowId, c, text, ok) } : {}),
  }
}

/** A finished call, in the member's session (announced on the sink). */
function recordCall(ctx: Ctx, sink: StepSink, rowId: number, c: McpCall, text: string, ok: boolean): void {
  writeStep(ctx.store, sink, {
    member_id: rowId,
    kind: 'tool',
    status: ok ? 'done' : 'error',
    tool_name: c.name,
    tool_args: c.argumentsText,
    tool_call_id: `mcp-${randomUUID()}`,
    text,
    is_error: ok ? 0 : 1,
    started_at: now(),
    ended_at: now(),
  })
}
