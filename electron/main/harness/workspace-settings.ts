import type { ParsedParams } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { WorkspaceSettings } from '../../../shared/schemas'
import { assertAllowedEnv } from '../platform/command-env'
import { ToolError } from '../platform/tool-error'
import type { Ctx } from './context'
import { now } from './ids'

/** The settings of a workspace, with the defaults filled in for anything never saved. */
export function workspaceSettings(ctx: Ctx): WorkspaceSettings {
  const raw = ctx.store.settings.get()
  const env = raw.commandEnv
  return {
    commandEnv:
      env && typeof env === 'object' && !Array.isArray(env)
        ? Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string'))
        : {},
    gitHooks: raw.gitHooks === true,
    // Workspaces saved before isolation existed keep working in the user's checkout until they choose.
    isolation: raw.isolation === 'worktree' ? 'worktree' : 'shared',
    baseBranch: typeof raw.baseBranch === 'string' ? raw.baseBranch : null,
    deleteMergedBranches: raw.deleteMergedBranches === true,
    autoTurns: raw.autoTurns !== false,
    autoDeliver: raw.autoDeliver === true,
    startAgentOnTaskStart: raw.startAgentOnTaskStart !== false,
    followUps: raw.followUps === 'offer' ? 'offer' : 'create',
  }
}

export function updateWorkspaceSettings(ctx: Ctx, p: ParsedParams<'workspaces.update'>): WorkspaceSettings {
  if (p.commandEnv) {
    try {
      assertAllowedEnv(p.commandEnv)
    } catch (err) {
      // The same rule the command runner applies, told before anything is saved.
      if (err instanceof ToolError) throw new ApiError('invalid_params', `commandEnv: ${err.message}`)
      throw err
    }
  }
  const current = workspaceSettings(ctx)
  const next: WorkspaceSettings = {
    commandEnv: p.commandEnv ?? current.commandEnv,
    gitHooks: p.gitHooks ?? current.gitHooks,
    isolation: p.isolation ?? current.isolation,
    baseBranch: p.baseBranch ?? current.baseBranch,
    deleteMergedBranches: p.deleteMergedBranches ?? current.deleteMergedBranches,
    autoTurns: p.autoTurns ?? current.autoTurns,
    autoDeliver: p.autoDeliver ?? current.autoDeliver,
    startAgentOnTaskStart: p.startAgentOnTaskStart ?? current.startAgentOnTaskStart,
    followUps: p.followUps ?? current.followUps,
  }
  if (next.isolation === 'worktree' && !next.baseBranch)
    throw new ApiError(
      'invalid_params',
      'baseBranch: worktree isolation needs the branch tasks start from and merge into',
    )
  ctx.store.transaction(() => {
    ctx.store.settings.set({ ...ctx.store.settings.get(), ...next })
    ctx.store.log.appendEvent(
      'workspace.settings',
      { commandEnv: Object.keys(next.commandEnv), gitHooks: next.gitHooks },
      now(),
    )
  })
  return next
}
