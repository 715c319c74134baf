/**
 * `concord mcp` on its own (a user's Claude Code in a terminal): the harness tools act on the data folder's
 * SQLite files directly, as one member. No runtime is started here: recovery and command processes belong to
 * the app, and this process must never mark the app's running turns as interrupted. It never reads the
 * members' keys either (its secret store is an empty one).
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { MethodName, Params, Result } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import { dispatch } from '../dispatch'
import { EventBus } from '../../platform/events/event-bus'
import { harnessHandlers, type Handlers } from '../handlers'
import { memberRowOf } from '../../harness/context'
import { Harness } from '../../harness/harness'
import { now, parseId } from '../../harness/ids'
import { buildBrief } from '../../runtime/brief'
import { busSink, quiet, writeStep } from '../../runtime/step-writer'
import { SecretStore } from '../../platform/secrets/secret-store'
import type { HarnessToolContext } from '../../runtime/tools/harness-tools'
import { ToolError } from '../../platform/tool-error'
import { approveInApp, forwardToApp } from './app-relay'
import { takeNotices } from '../../runtime/mcp/member-binding'
import type { McpBinding } from '../../runtime/mcp/server'

export interface Standalone {
  binding: McpBinding
  /** Closes the harness; settles once the last events have reached the app (see forwardToApp). */
  close: () => Promise<void>
}

export function standaloneBinding(dataDir: string, memberId: string): Standalone {
  if (!existsSync(join(dataDir, 'concord.sqlite')) && !existsSync(join(dataDir, 'workspaces'))) {
    throw new ApiError(
      'not_found',
      `there is no Concord data folder at ${dataDir}: pass --data-dir, or open the workspace in Concord first`,
    )
  }
  const bus = new EventBus()
  const harness = new Harness({ dataDir, bus, secrets: new SecretStore(join(dataDir, 'mcp-has-no-secrets.json')) })
  const stopForwarding = forwardToApp(dataDir, bus)
  try {
    const { workspaceId } = parseId(memberId, 'member', 'memberId')
    const ctx = () => harness.ctx(workspaceId, 'memberId')
    const rowId = memberRowOf(ctx(), memberId, 'memberId')
    const member = () => ctx().store.members.get(rowId)!
    const handlers = harnessHandlers({ harness }) as unknown as Handlers
    const call = <M extends MethodName>(method: M, params: Params<M>) =>
      dispatch(handlers, method, params) as Promise<Result<M>>
    const repoPath = harness.workspace(workspaceId).repoPath
    const first = member()
    // What the agent did shows in the member's session in the running app (the relay forwards it).
    const sink = busSink(bus, workspaceId)
    const emitStep = (id: number) => {
      const row = ctx().store.steps.get(id)
      if (row) sink(row)
    }
    const binding: McpBinding = {
      authority: first.authority,
      approval: first.approval,
      context: (): HarnessToolContext => ({
        workspaceRoot: repoPath,
        signal: new AbortController().signal,
        workspaceId,
        memberId,
        authority: member().authority,
        call,
        // Rebuilt per call: the basis of a report is the decisions as they are now.
        brief: () => buildBrief(ctx(), member(), []),
        stepText: () => null,
        message: async (to, text) => {
          const target = memberRowOf(ctx(), to, 'memberId')
          // Not announced: the app shows it when that member's session is next read.
          writeStep(ctx().store, quiet, {
            member_id: target,
            kind: 'message',
            status: 'queued',
            text,
            from_member_id: rowId,
            started_at: now(),
          })
        },
        delegate: async () => {
          throw new ToolError('unsupported', 'delegate is not offered over MCP')
        },
        sourceStepId: '',
        endTurn: () => {},
      }),
      // The running app asks the human when it drives this member's turn; otherwise nobody watches this process,
      // and a call the member's policy wants approved is refused, with the way out.
      approve: async (c) => {
        const allowed = await approveInApp(dataDir, memberId, c.name, c.argumentsText)
        if (allowed !== null) return allowed
        throw new ToolError(
          'approval_required',
          `${c.name} needs the human's approval under this member's policy (ask); do it in Concord, or set the member's approval to auto`,
        )
      },
      afterCall: () => {
        const taken = takeNotices(ctx(), rowId, null)
        if (taken?.stepId) emitStep(taken.stepId)
        return taken?.text ?? ''
      },
      record: (c, text, ok) => {
        writeStep(ctx().store, sink, {
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
      },
    }
    return {
      binding,
      close: () => {
        const flushed = stopForwarding()
        harness.close()
        return flushed
      },
    }
  } catch (err) {
    void stopForwarding()
    harness.close()
    throw err
  }
}
