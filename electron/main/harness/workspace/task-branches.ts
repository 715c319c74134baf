/**
 * The repository side of tasks (DESIGN §1 "task branch"): in a worktree workspace each started task gets its own
 * branch and worktree, every artifact is resolved to a full commit, and the tree each turn works in is chosen here.
 * Git runs outside transactions; what it produced is recorded in short synchronous transactions afterwards.
 */
import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { OpenedWorkspace, WorkspaceSettings } from '../../../../shared/schemas'
import {
  convertWorktree,
  createBranchRef,
  descendsFrom,
  ensureCheckout,
  freeBranchName,
  inspectRepo,
  isLinkedWorktree,
  isOwnTree,
  makeTree,
  objectsOf,
  removeTree,
  resolveCommit,
  resolveTreeCommit,
  syncTaskBranch,
  type RepoInfo,
} from '../../repo/git-repo'
import { uncommittedFiles } from '../../repo/file-changes'
import { carryIdentity } from '../../repo/git-identity'
import type { TaskBranchRow } from '../../store/branches-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { planPhaseOf } from '../rules/plan-phase'
import { makeKey, now } from '../ids'
import { hasNoCommit, noCommitWords } from './first-commit'
import { watchBase } from './base-moves'
import { interruptedMerges } from './merge-recovery'
import { setupSettled, setUpTree, stopTreeRuns } from './tree-runs'
import { updateWorkspaceSettings, workspaceSettings } from './workspace-settings'

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/i

/** One task's worktree is created once even when two calls race for it. */
const creating = new Map<string, Promise<TaskBranchRow | null>>()

export function worktreesDir(h: Harness, wsId: string): string {
  return join(h.registry.dataDir, 'worktrees', wsId)
}

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

/**
 * The task's branch and tree, created from the base branch on first use (and restored if the folder went). The intent
 * is recorded first (a row in state 'creating' that reserves the branch name and the folder), then the branch is made
 * in the user's repository and the tree cloned; a crash anywhere in between is finished by the next call, which does
 * each step again only where it is missing — so a retry never adds another branch. A tree from before trees were
 * clones (a linked worktree) is converted in place on its next use, its files kept.
 */
export async function ensureTaskWorktree(h: Harness, ctx: Ctx, taskRowId: number): Promise<TaskBranchRow | null> {
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) return null
  const key = `${ctx.wsId}:${taskRowId}`
  const pending = creating.get(key)
  if (pending) return pending
  const work = (async () => {
    const repo = h.workspace(ctx.wsId).repoPath
    let row = ctx.store.branches.get(taskRowId)
    if (row?.merged_commit) return row
    if (row && row.state === 'ready' && row.worktree) {
      if (isOwnTree(row.worktree)) return row
      // An old linked worktree, or a tree whose .git is gone (a crash while it was converted, an agent's rm -rf .git):
      // its files are kept under a fresh .git on the branch as your repository has it.
      if (needsConversion(row.worktree)) {
        await convertWorktree(repo, row.worktree, row.branch)
        return row
      }
    }
    if (!row) {
      const base = await resolveCommit(repo, `refs/heads/${settings.baseBranch}`)
      if (!base) await assertBranchable(h, ctx, taskRowId)
      if (!base)
        throw new ApiError(
          'invalid_params',
          `the base branch ${settings.baseBranch} does not exist (any more) in the repository; set another one (workspaces.update baseBranch)`,
        )
      const task = ctx.store.tasks.get(taskRowId)!
      let branch = await freeBranchName(repo, makeKey('task', taskRowId), task.title)
      // A name another task reserved and has not created yet is not free either.
      for (let n = 2; ctx.store.branches.byBranch(branch); n++)
        branch = await freeBranchName(repo, makeKey('task', taskRowId), `${task.title} ${n}`)
      const dir = join(worktreesDir(h, ctx.wsId), makeKey('task', taskRowId))
      ctx.store.transaction(() =>
        ctx.store.branches.insert({
          task_id: taskRowId,
          branch,
          worktree: dir,
          base_commit: base,
          head: base,
          created_at: now(),
          state: 'creating',
        }),
      )
      row = ctx.store.branches.get(taskRowId)!
    }
    const dir = row.worktree ?? join(worktreesDir(h, ctx.wsId), makeKey('task', taskRowId))
    const wasCreating = row.state === 'creating'
    await createBranchRef(repo, row.branch, row.base_commit)
    const start = (await resolveCommit(repo, `refs/heads/${row.branch}`)) ?? row.head
    await makeTree(repo, dir, row.branch, start)
    // A clone has none of your checkout's config: who commits in it is carried over (an agent commits as you).
    await carryIdentity(repo, dir)
    ctx.store.transaction(() => {
      ctx.store.branches.setWorktree(taskRowId, dir)
      if (wasCreating) {
        ctx.store.branches.setState(taskRowId, 'ready')
        ctx.store.log.appendEvent(
          'task.branch',
          { taskId: taskRowId, branch: row.branch, base: row.base_commit },
          now(),
        )
      }
    })
    // A new tree gets the listed files and the setup command; a turn in it waits for them (setupSettled).
    if (wasCreating) setUpTree(h, ctx, taskRowId, dir)?.catch(() => undefined)
    return ctx.store.branches.get(taskRowId)!
  })()
  creating.set(key, work)
  try {
    return await work
  } finally {
    creating.delete(key)
  }
}

/** Refuses (no_commit) to start a task that would get a tree in a repository with no commit to branch from. */
export async function assertBranchable(h: Harness, ctx: Ctx, taskRowId: number): Promise<void> {
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || ctx.store.branches.get(taskRowId)) return
  const repo = h.workspace(ctx.wsId).repoPath
  if (await hasNoCommit(repo))
    throw new ApiError(
      'no_commit',
      `${makeKey('task', taskRowId)} cannot start: ${noCommitWords(settings.baseBranch)}`,
      {
        branch: settings.baseBranch,
      },
    )
}

/** A task's folder that is there but not a tree of its own: an old linked worktree, or one whose .git is gone. */
function needsConversion(dir: string): boolean {
  return isLinkedWorktree(dir) || (existsSync(dir) && !existsSync(join(dir, '.git')))
}

/** Trees whose creation a crash interrupted are finished now (at start), so no task waits for its next turn. */
export async function reconcileTrees(h: Harness, ctx: Ctx): Promise<void> {
  for (const row of ctx.store.branches.list()) {
    if (row.state === 'creating') await ensureTaskWorktree(h, ctx, row.task_id).catch(() => undefined)
  }
}

/** Removes a task's tree (cancelled); the branch and its commits stay. True when there was one. */
export async function releaseTaskWorktree(h: Harness, ctx: Ctx, taskRowId: number): Promise<boolean> {
  const row = ctx.store.branches.get(taskRowId)
  if (!row?.worktree) return false
  await refreshHead(h, ctx, taskRowId)
  await stopTreeRuns(ctx, taskRowId)
  await removeTree(h.workspace(ctx.wsId).repoPath, row.worktree)
  ctx.store.transaction(() => ctx.store.branches.setWorktree(taskRowId, null))
  return true
}

/**
 * Reads the tree's head into the store and brings it into the user's repository as the task's branch (see
 * syncTaskBranch: no program of the tree runs, only this branch is written, only to a descendant of the base).
 * The recorded head is one the user's repository has; returns the row as it is now.
 */
export async function refreshHead(h: Harness, ctx: Ctx, taskRowId: number): Promise<TaskBranchRow | undefined> {
  const row = ctx.store.branches.get(taskRowId)
  if (!row?.worktree || !existsSync(row.worktree) || row.state !== 'ready') return row
  const repo = h.workspace(ctx.wsId).repoPath
  if (needsConversion(row.worktree)) await convertWorktree(repo, row.worktree, row.branch)
  const limit = { bytes: workspaceSettings(ctx).treeTransferLimitMB * 1024 * 1024, setting: 'treeTransferLimitMB' }
  const { head, landed } = await syncTaskBranch(repo, row.worktree, row.branch, row.base_commit, limit)
  if (head && landed && head !== row.head) ctx.store.transaction(() => ctx.store.branches.setHead(taskRowId, head))
  return ctx.store.branches.get(taskRowId)
}

/**
 * An artifact as given (short SHA, branch, tag, HEAD) resolved to the full commit in the workspace's repository.
 * In a folder that is not a git repository there is nothing to resolve against: only a full SHA is accepted.
 */
export async function resolveArtifact(
  h: Harness,
  ctx: Ctx,
  artifact: { commit?: string; digest?: string } | undefined,
  tree?: string,
) {
  if (!artifact?.commit) return artifact
  const repo = h.workspace(ctx.wsId).repoPath
  const inTree = tree && isOwnTree(tree) ? await resolveTreeCommit(tree, artifact.commit) : null
  const sha = inTree ?? (await resolveCommit(repo, artifact.commit))
  if (!sha) {
    // Whether the folder is a repository at all is asked only when the name did not resolve (a resolved name says it).
    const info = await inspectRepo(repo).catch(() => null)
    if (!info?.isRepo) {
      if (FULL_SHA.test(artifact.commit)) return { ...artifact, commit: artifact.commit.toLowerCase() }
      throw new ApiError(
        'invalid_artifact',
        `artifact.commit: '${artifact.commit}' cannot be resolved: this workspace is not a git repository (give a full SHA or a digest)`,
      )
    }
    throw new ApiError('invalid_artifact', `artifact.commit: '${artifact.commit}' is not a commit in this repository`)
  }
  // What is recorded must resolve in the user's repository: Concord brings a tree's branch head there, nothing else.
  if (inTree && !(await resolveCommit(repo, sha))) {
    throw new ApiError(
      'invalid_artifact',
      `artifact.commit: ${sha.slice(0, 10)} is in the task's tree but not on its branch (Concord brings into your repository only the tree's head, and only when it descends from the task's base); check it out or merge it into the branch and commit`,
    )
  }
  return { ...artifact, commit: sha }
}

/**
 * What a delivery records: the given artifact resolved, or — in a worktree workspace — the worktree's head, refused
 * while the worktree has changes that are not committed (they would not be part of what was delivered).
 */
export async function deliveryArtifact(
  h: Harness,
  ctx: Ctx,
  taskRowId: number,
  given: { commit?: string; digest?: string } | undefined,
) {
  const branch = await refreshHead(h, ctx, taskRowId)
  if (given) {
    const artifact = await resolveArtifact(h, ctx, given, branch?.worktree ?? undefined)
    if (artifact?.commit && ctx.store.turnUndo.isUndone(taskRowId, artifact.commit))
      throw new ApiError(
        'invalid_artifact',
        `artifact.commit: ${artifact.commit.slice(0, 10)} was made by a turn that was undone: it is not on ${makeKey('task', taskRowId)}'s branch any more; deliver the tree's head`,
      )
    // Deliverable means on the task's branch: a commit of the task's tree (or of your repository) that does not
    // descend from the task's base is not the task's work.
    if (
      branch &&
      artifact?.commit &&
      !(await descendsFrom(h.workspace(ctx.wsId).repoPath, artifact.commit, branch.base_commit))
    )
      throw new ApiError(
        'invalid_artifact',
        `artifact.commit: ${artifact.commit.slice(0, 10)} does not descend from ${makeKey('task', taskRowId)}'s base ${branch.base_commit.slice(0, 10)}, so it is not on ${branch.branch}: deliver a commit of the task's branch`,
      )
    return artifact
  }
  if (!branch?.worktree || !existsSync(branch.worktree)) return undefined
  const dirty = await uncommittedFiles(branch.worktree)
  if (dirty.length) {
    const shown = dirty.slice(0, 20)
    throw new ApiError(
      'uncommitted_changes',
      `${makeKey('task', taskRowId)} has changes that are not committed on ${branch.branch}: ${shown.join(', ')}${dirty.length > shown.length ? ` and ${dirty.length - shown.length} more` : ''}; commit them (git_commit) or discard them before delivering`,
      { files: dirty },
    )
  }
  const head = (await refreshHead(h, ctx, taskRowId))?.head
  const treeAt = await resolveTreeCommit(branch.worktree, 'HEAD')
  if (treeAt && treeAt !== head) {
    throw new ApiError(
      'invalid_artifact',
      `${makeKey('task', taskRowId)}'s tree is at ${treeAt.slice(0, 10)}, which does not descend from the task's base ${branch.base_commit.slice(0, 10)}: Concord brings only descendants of the base into your repository. Rebase the work onto the base (or check out ${branch.branch}) and commit`,
    )
  }
  return head ? { commit: head } : undefined
}

/** The tree a turn works in, and the words the brief uses for it. */
export interface TurnTree {
  root: string
  /** Set when the tree is a read-only checkout: which one, for refusals and the brief. */
  readOnly?: string
  /** The member plans a plan-first task (read-only until a plan is approved): an ACP agent's plan mode, if it has one. */
  planning?: boolean
  /** The user's object store the tree (a clone) reads through alternates: read-only in the turn's sandbox. */
  readable?: string[]
  /** For the brief: "task T-3's worktree on concord/T-3-x at abc1234". */
  description: string
  /** The task whose worktree this is (the turn's changes are its changes). */
  taskRowId: number | null
  commit: string | null
}

/**
 * DESIGN: the assignee works in its task's worktree; a member verifying another's task reads a checkout of the
 * delivered commit (or the current head); a turn without a task reads the base branch. Shared workspaces and plain
 * folders use the user's checkout, as before.
 */
export async function treeForTurn(
  h: Harness,
  ctx: Ctx,
  memberRowId: number,
  taskRowId: number | null,
): Promise<TurnTree> {
  const repo = h.workspace(ctx.wsId).repoPath
  const settings = workspaceSettings(ctx)
  const task = taskRowId === null ? undefined : ctx.store.tasks.get(taskRowId)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) {
    const phase = task?.assignee_id === memberRowId ? planPhaseOf(ctx, task.id) : 'off'
    if (phase === 'planning' || phase === 'pending')
      return {
        root: repo,
        readOnly: `the repository at ${repo}, read-only until your plan for ${makeKey('task', task!.id)} is approved`,
        planning: true,
        description: `the repository at ${repo} (read-only: plan first)`,
        taskRowId: null,
        commit: null,
      }
    return { root: repo, description: `the repository at ${repo}`, taskRowId: null, commit: null }
  }
  const mine = join(worktreesDir(h, ctx.wsId), `m${memberRowId}-readonly`)
  if (task && task.assignee_id === memberRowId && task.status !== 'accepted' && task.status !== 'cancelled') {
    const branch = await ensureTaskWorktree(h, ctx, task.id)
    if (branch?.worktree) await setupSettled(h, ctx, task.id, branch.worktree)
    if (branch?.worktree) {
      // Checked again before each turn: an identity you changed in your checkout since, or one an agent set, is put right.
      await carryIdentity(repo, branch.worktree)
      const head = (await refreshHead(h, ctx, task.id))?.head ?? branch.head
      const description = `${makeKey('task', task.id)}'s worktree, branch ${branch.branch} at ${head.slice(0, 10)}`
      // Plan first: the task's own tree, read-only until a plan of it is approved (writes and commits are refused).
      const phase = planPhaseOf(ctx, task.id)
      const planning = phase === 'planning' || phase === 'pending'
      return {
        root: branch.worktree,
        readable: await objectsOf(repo),
        ...(planning ? { readOnly: `${description}, read-only until your plan is approved`, planning } : {}),
        description: planning ? `${description} (read-only: plan first)` : description,
        taskRowId: task.id,
        commit: head,
      }
    }
  }
  if (task) {
    const branch = await refreshHead(h, ctx, task.id)
    const commit =
      task.artifact_commit ?? branch?.head ?? (await resolveCommit(repo, `refs/heads/${settings.baseBranch}`))
    if (commit) {
      const what = task.artifact_commit
        ? `the delivered commit ${commit.slice(0, 10)} of ${makeKey('task', task.id)}`
        : `${makeKey('task', task.id)}'s current head ${commit.slice(0, 10)} (not delivered yet)`
      return {
        root: await ensureCheckout(repo, mine, commit),
        readable: await objectsOf(repo),
        readOnly: `a read-only checkout of ${what}`,
        description: `a read-only checkout of ${what}`,
        taskRowId: null,
        commit,
      }
    }
  }
  const base = await resolveCommit(repo, `refs/heads/${settings.baseBranch}`)
  if (!base)
    return {
      root: repo,
      readOnly: `your checkout (read-only: the base branch ${settings.baseBranch} has no commit)`,
      description: `the repository at ${repo}, read-only`,
      taskRowId: null,
      commit: null,
    }
  const what = `the base branch ${settings.baseBranch} at ${base.slice(0, 10)}`
  return {
    root: await ensureCheckout(repo, mine, base),
    readable: await objectsOf(repo),
    readOnly: `a read-only checkout of ${what} (you have no task in progress)`,
    description: `a read-only checkout of ${what}`,
    taskRowId: null,
    commit: base,
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
