import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import { LOCAL_RUNNER, RunnerSchema } from '../../../../shared/runners'
import { Budget, PriceTable, type WorkspaceSettings } from '../../../../shared/schemas'
import { assertAllowedEnv } from '../../platform/command-env'
import { ToolError } from '../../platform/tool-error'
import type { Ctx } from '../context'
import { now } from '../ids'
import { budgetState, DEFAULT_PRICES } from './money'

/** A 300 MB commit took 24 s and 700 MB of memory to bring over before the transfer was streamed: a bound either way. */
export const TREE_TRANSFER_LIMIT_MB = 500

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
    autoChecks: raw.autoChecks !== false,
    planFirst: raw.planFirst === true,
    startAgentOnTaskStart: raw.startAgentOnTaskStart !== false,
    followUps: raw.followUps === 'offer' ? 'offer' : 'create',
    updates: raw.updates === 'rebase' ? 'rebase' : 'merge',
    merges: raw.merges === 'as-accepted' ? 'as-accepted' : 'verified',
    setupCommand: typeof raw.setupCommand === 'string' && raw.setupCommand.trim() ? raw.setupCommand : null,
    copyFiles: Array.isArray(raw.copyFiles) ? raw.copyFiles.filter((f): f is string => typeof f === 'string') : [],
    runCommand: typeof raw.runCommand === 'string' && raw.runCommand.trim() ? raw.runCommand : null,
    treeNetwork: raw.treeNetwork !== false,
    treeTransferLimitMB:
      typeof raw.treeTransferLimitMB === 'number' &&
      Number.isInteger(raw.treeTransferLimitMB) &&
      raw.treeTransferLimitMB > 0
        ? raw.treeTransferLimitMB
        : TREE_TRANSFER_LIMIT_MB,
    // Never saved: the shipped list prices; saved, the user's table as it is (a model removed stays unpriced).
    prices: raw.prices === undefined ? DEFAULT_PRICES : (PriceTable.safeParse(raw.prices).data ?? DEFAULT_PRICES),
    budget: Budget.safeParse(raw.budget).data ?? null,
    defaultRunner: RunnerSchema.safeParse(raw.defaultRunner).data ?? LOCAL_RUNNER,
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
  // Every other field of the call is a setting of the same name (Pick fails to compile where one is not).
  const { workspaceId: _, setupCommand, copyFiles, runCommand, budget, ...given } = p
  const next: WorkspaceSettings = {
    ...current,
    ...givenOnly<Partial<Pick<WorkspaceSettings, keyof typeof given>>>(given),
    setupCommand: setupCommand === undefined ? current.setupCommand : setupCommand.trim() || null,
    copyFiles: copyFiles === undefined ? current.copyFiles : checkedCopyFiles(copyFiles),
    runCommand: runCommand === undefined ? current.runCommand : runCommand.trim() || null,
    budget: budget === undefined ? current.budget : budget,
  }
  if (next.isolation === 'worktree' && !next.baseBranch)
    throw new ApiError(
      'invalid_params',
      'baseBranch: worktree isolation needs the branch tasks start from and merge into',
    )
  const saved = ctx.store.settings.get()
  const wasReached = budgetState(ctx, current)?.reached === true
  // The shipped price list is not saved until the user edits it: a later version's list still reaches them.
  const { prices, ...rest } = next
  ctx.store.transaction(() => {
    ctx.store.settings.set({
      ...saved,
      ...rest,
      ...(p.prices !== undefined || saved.prices !== undefined ? { prices } : {}),
    })
    ctx.store.log.appendEvent(
      'workspace.settings',
      { commandEnv: Object.keys(next.commandEnv), gitHooks: next.gitHooks },
      now(),
    )
  })
  // A budget raised or removed: the automatic turns it held start now (auto-turns.ts), not at the next start.
  ctx.emit('workspace.settings', {
    workspaceId: ctx.wsId,
    settings: next,
    budgetFreed: wasReached && budgetState(ctx, next)?.reached !== true,
  })
  return next
}

/** The fields a call gives, those it leaves out (undefined or null) dropped: spread over what is saved, they keep it. */
const givenOnly = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v != null)) as Partial<T>

/**
 * The copied-files list as saved: each entry a path or glob relative to the checkout, never leaving it (no absolute
 * path, no `..`) and never naming git's own folder. Symlinks that lead out are refused when the files are copied.
 */
export function checkedCopyFiles(list: string[]): string[] {
  const out: string[] = []
  for (const raw of list) {
    const entry = raw.trim().replace(/\\/g, '/')
    const where = `copyFiles: '${raw}'`
    if (!entry) continue
    if (entry.startsWith('/') || /^[a-zA-Z]:/.test(entry) || entry.startsWith('~'))
      throw new ApiError(
        'invalid_params',
        `${where} is absolute; name files relative to your checkout (.env, config/local.json)`,
      )
    const parts = entry.split('/').filter((p) => p !== '' && p !== '.')
    if (parts.includes('..'))
      throw new ApiError('invalid_params', `${where} leaves your checkout (..); only files inside it are copied`)
    if (parts.some((p) => p.toLowerCase() === '.git'))
      throw new ApiError('invalid_params', `${where} names git's own folder (.git); a task's tree has its own`)
    if (/[\x00-\x1f]/.test(entry) || entry.startsWith(':'))
      throw new ApiError('invalid_params', `${where} has control characters or starts with ':'`)
    if (!parts.length) throw new ApiError('invalid_params', `${where} names the whole checkout; name the files to copy`)
    out.push(parts.join('/'))
  }
  return [...new Set(out)]
}
