import type { ParsedParams } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import type { WorkspaceSettings } from '../../../shared/schemas'
import { assertAllowedEnv } from '../runtime/tools/command-env'
import { ToolError } from '../runtime/tools/types'
import type { Ctx } from './context'
import { now } from './ids'

/** The settings of a workspace, with the defaults filled in for anything never saved. */
export function workspaceSettings(ctx: Ctx): WorkspaceSettings {
  const raw = ctx.store.settings.get()
  const env = raw.commandEnv
  return {
    commandEnv: env && typeof env === 'object' && !Array.isArray(env) ? Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string')) as Record<string, string> : {},
    gitHooks: raw.gitHooks === true,
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
  const next = { ...workspaceSettings(ctx), ...(p.commandEnv ? { commandEnv: p.commandEnv } : {}), ...(p.gitHooks !== undefined ? { gitHooks: p.gitHooks } : {}) }
  ctx.store.transaction(() => {
    ctx.store.settings.set({ ...ctx.store.settings.get(), ...next })
    ctx.store.log.appendEvent('workspace.settings', { commandEnv: Object.keys(next.commandEnv), gitHooks: next.gitHooks }, now())
  })
  return next
}
