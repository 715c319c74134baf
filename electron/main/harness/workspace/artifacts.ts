/** What a report or a delivery was made on: a task's artifact (its branch head, a commit) resolved against its tree. */
import { ApiError } from '../../../../shared/errors'
import { uncommittedFiles } from '../../repo/file-changes'
import { descendsFrom, inspectRepo, isOwnTree, resolveCommit, resolveTreeCommit } from '../../repo/git-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey } from '../ids'
import { refreshHead } from './task-branches'
import { existsSync } from 'node:fs'

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/i

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
