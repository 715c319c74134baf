/** workspaces.open and workspaces.update: a folder becomes a workspace, and its isolation and base branch are checked against the repository before they are saved. */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { OpenedWorkspace, WorkspaceSettings } from '../../../../shared/schemas'
import { type RepoInfo, inspectRepo, resolveCommit } from '../../repo/git-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { watchBase } from './base-moves'
import { hasNoCommit } from './first-commit'
import { interruptedMerges } from './merge-recovery'
import { reconcileTrees } from './task-branches'
import { updateWorkspaceSettings, workspaceSettings } from './workspace-settings'
import { realpathSync } from 'node:fs'

/**
 * Opens (or re-opens) a workspace and settles its isolation: worktree for a git repository unless asked otherwise,
 * shared for a plain folder; a bare repository or a detached HEAD without a base branch are refused.
 */
export async function openWorkspace(h: Harness, p: ParsedParams<'workspaces.open'>): Promise<OpenedWorkspace> {
  const info = await inspectRepo(p.repoPath).catch((): RepoInfo => ({
    isRepo: false,
    bare: false,
    branch: null,
    head: null,
    submodules: false,
    lfs: false,
  }))
  if (info.bare)
    throw new ApiError(
      'invalid_params',
      `repoPath: ${p.repoPath} is a bare repository; open a folder with a working tree (a clone) instead`,
    )
  if (!info.isRepo && p.isolation === 'worktree') {
    throw new ApiError(
      'invalid_params',
      `isolation: ${p.repoPath} is not a git repository, so tasks cannot have branches; open it with isolation "shared" (or run git init first)`,
    )
  }
  if (p.baseBranch && info.isRepo && !(await resolveCommit(p.repoPath, `refs/heads/${p.baseBranch}`))) {
    throw new ApiError('invalid_params', `baseBranch: there is no branch ${p.baseBranch} in ${p.repoPath}`)
  }
  const known = h.registry.byPath(realOrSelf(p.repoPath))
  const workspace = h.openWorkspace(p.repoPath, p.name)
  const ctx = h.ctx(workspace.id)
  const stored = ctx.store.settings.get()
  // A workspace keeps what it had; one from before worktrees existed stays shared until the user switches it.
  const isolation: WorkspaceSettings['isolation'] =
    p.isolation ??
    (stored.isolation === 'worktree' || stored.isolation === 'shared'
      ? stored.isolation
      : known
        ? 'shared'
        : info.isRepo
          ? 'worktree'
          : 'shared')
  const baseBranch = p.baseBranch ?? (typeof stored.baseBranch === 'string' ? stored.baseBranch : info.branch)
  if (isolation === 'worktree' && !baseBranch) {
    throw new ApiError(
      'invalid_params',
      `baseBranch: HEAD of ${p.repoPath} is detached; name the branch tasks start from and merge into (baseBranch), or use isolation "shared"`,
    )
  }
  ctx.store.transaction(() => ctx.store.settings.set({ ...ctx.store.settings.get(), isolation, baseBranch }))
  const notes: string[] = []
  if (!info.isRepo)
    notes.push(
      'Not a git repository: members share this folder (no branches, no diffs, no merge); commits given as evidence are recorded as typed.',
    )
  if (info.isRepo && isolation === 'shared')
    notes.push(
      'Shared: every member writes your checkout directly (its .git stays read-only to their commands); tasks get no branches of their own.',
    )
  if (info.isRepo && !info.head && isolation === 'worktree' && (await hasNoCommit(p.repoPath)))
    notes.push(
      `No commit yet: tasks branch from a commit and ${baseBranch ?? 'HEAD'} has none; make the first one (empty, or of the folder's files) to start tasks.`,
    )
  if (isolation === 'worktree' && info.submodules)
    notes.push('Submodules: task trees are created without initialising submodules; members see them as empty folders.')
  if (isolation === 'worktree' && info.lfs)
    notes.push('Git LFS: task trees check out LFS files only when git-lfs is set up in your own git config.')
  if (info.isRepo) {
    // What a crash left: trees half made are finished, merges cut short are reported (merge-recovery.ts).
    await reconcileTrees(h, ctx)
    notes.push(...(await interruptedMerges(ctx, p.repoPath, false).catch(() => [])))
    // The base branch is watched from now on; what moved while Concord was closed is checked now, off this call.
    void watchBase(h, ctx)
  }
  return { ...workspace, settings: workspaceSettings(ctx), notes }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** workspaces.update: isolation and base branch are checked against the repository before they are saved. */
export async function updateWorkspace(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'workspaces.update'>,
): Promise<WorkspaceSettings> {
  if (p.isolation === 'worktree' || p.baseBranch) {
    const repo = h.workspace(ctx.wsId).repoPath
    const info = await inspectRepo(repo)
    if (!info.isRepo)
      throw new ApiError('invalid_params', `isolation: ${repo} is not a git repository; only "shared" is possible`)
    const base = p.baseBranch ?? workspaceSettings(ctx).baseBranch ?? info.branch
    if (!base || !(await resolveCommit(repo, `refs/heads/${base}`)))
      throw new ApiError(
        'invalid_params',
        `baseBranch: there is no branch ${base ?? '(none: HEAD is detached)'} in ${repo}`,
      )
    return updateWorkspaceSettings(ctx, { ...p, baseBranch: base })
  }
  return updateWorkspaceSettings(ctx, p)
}
