/**
 * `concord mcp` on its own (a user's Claude Code in a terminal): the harness tools act on the data folder's
 * SQLite files directly, as one member. No runtime is started here: recovery and command processes belong to
 * the app, and this process must never mark the app's running turns as interrupted. It never reads the
 * members' keys either (its secret store is an empty one).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { MethodName, Params, Result } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import { dispatch } from '../dispatch'
import { EventBus } from '../../platform/events/event-bus'
import { harnessHandlers, type Handlers } from '../handlers'
import { memberRowOf, type Ctx } from '../../harness/context'
import { Harness } from '../../harness/harness'
import { now, parseId } from '../../harness/ids'
import { busSink, quiet, writeStep } from '../../runtime/step-writer'
import { SecretStore } from '../../platform/secrets/secret-store'
import { approveInApp, forwardToApp } from './app-relay'
import { memberBinding } from '../../runtime/mcp/member-binding'
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
    const handlers = harnessHandlers({ harness }) as unknown as Handlers
    const call = <M extends MethodName>(method: M, params: Params<M>) =>
      dispatch(handlers, method, params) as Promise<Result<M>>
    const repoPath = harness.workspace(workspaceId).repoPath
    const rowId = memberRowOf(ctx(), memberId, 'memberId')
    const { approval } = ctx().store.members.get(rowId)!
    const binding = memberBinding({
      ctx,
      memberId,
      call,
      repoPath: () => repoPath,
      turn: () => null,
      approval: () => approval,
      rules: false,
      // Not announced: the app shows it when that member's session is next read.
      message: (to, text) => queueMessage(ctx(), rowId, to, text),
      // The running app asks the human when it drives this member's turn; otherwise nobody watches this process,
      // and a call the member's policy wants approved is refused, with the way out.
      ask: (name, argumentsText) => approveInApp(dataDir, memberId, name, argumentsText),
      refusal: "; do it in Concord, or set the member's approval to auto",
      // What the agent did shows in the member's session in the running app (the relay forwards it).
      record: busSink(bus, workspaceId),
    })
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

/** A message from the member, queued in the target's inbox (written here; the app shows it when next read). */
function queueMessage(ctx: Ctx, fromRowId: number, to: string, text: string): void {
  const target = memberRowOf(ctx, to, 'memberId')
  writeStep(ctx.store, quiet, {
    member_id: target,
    kind: 'message',
    status: 'queued',
    text,
    from_member_id: fromRowId,
    started_at: now(),
  })
}
