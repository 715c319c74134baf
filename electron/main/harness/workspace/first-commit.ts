/**
 * A repository with no commit (`git init` and nothing else) opens, but tasks have nothing to branch from: the first
 * commit is offered, made with Concord's own git (no hooks, no programs of the repository), empty or of the folder's
 * files as .gitignore leaves them, on the branch HEAD names.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { FirstCommit } from '../../../../shared/schemas'
import { identityEnv, resolveIdentity, type GitIdentity } from '../../repo/git-identity'
import { inspectRepo, resolveCommit } from '../../repo/git-repo'
import { runOwnGit } from '../../platform/own-git'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { now } from '../ids'
import { updateWorkspaceSettings, workspaceSettings } from './workspace-settings'

/** Used only when git knows no identity for the user (no user.name / user.email anywhere). */
const CONCORD: GitIdentity = {
  author: { name: 'Concord', email: 'concord@localhost' },
  committer: { name: 'Concord', email: 'concord@localhost' },
}

/** The words a refusal and the open note use, so both say the same thing. */
export function noCommitWords(branch: string | null): string {
  return `the repository has no commit yet, so tasks have nothing to branch from${branch ? ` (${branch} is not created until its first commit)` : ''}; make the first commit (an empty one, or of the files in the folder: workspaces.firstCommit), then start the task again`
}

/** True when the repository has no commit at all (HEAD unborn and no ref names a commit). */
export async function hasNoCommit(repo: string): Promise<boolean> {
  if (await resolveCommit(repo, 'HEAD')) return false
  const refs = await runOwnGit(
    repo,
    ['for-each-ref', '--count=1', '--format=%(objectname)', 'refs/heads', 'refs/tags'],
    {
      allowFailure: true,
    },
  )
  return refs.code === 0 && refs.stdout.trim() === ''
}

export async function makeFirstCommit(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'workspaces.firstCommit'>,
): Promise<FirstCommit> {
  const repo = h.workspace(ctx.wsId).repoPath
  const info = await inspectRepo(repo)
  if (!info.isRepo)
    throw new ApiError('invalid_params', `workspaceId: ${repo} is not a git repository (run git init first)`)
  if (!(await hasNoCommit(repo)))
    throw new ApiError(
      'invalid_transition',
      `the repository at ${repo} already has commits; Concord makes only the first one of a new repository`,
    )
  if (!info.branch)
    throw new ApiError('invalid_params', `HEAD of ${repo} names no branch; check out a branch (git switch -c main)`)
  // Who git names in your checkout (includeIf in ~/.gitconfig too), else Concord.
  const identity = identityEnv((await resolveIdentity(repo)) ?? CONCORD)
  const message = p.message ?? 'Initial commit'
  if (p.contents === 'files') {
    await own(repo, ['add', '-A', '--', '.'])
    await own(repo, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', message], identity)
  } else {
    // An empty commit leaves the index alone (what the user staged stays staged, uncommitted): plumbing, no checkout.
    const tree = (await own(repo, ['hash-object', '-t', 'tree', '-w', '/dev/null'])).trim()
    const made = (await own(repo, ['commit-tree', tree, '-m', message], identity)).trim()
    await own(repo, ['update-ref', '-m', 'concord: first commit', `refs/heads/${info.branch}`, made, ''])
  }
  const sha = await resolveCommit(repo, 'HEAD')
  if (!sha) throw new ApiError('io_error', 'git commit reported success but HEAD has no commit')
  const files = (await runOwnGit(repo, ['ls-tree', '-r', '-z', '--name-only', sha])).stdout.split('\0').filter(Boolean)
  const current = workspaceSettings(ctx)
  const settings = updateWorkspaceSettings(ctx, {
    workspaceId: p.workspaceId,
    baseBranch: current.baseBranch ?? info.branch,
  })
  ctx.store.transaction(() =>
    ctx.store.log.appendEvent(
      'workspace.first_commit',
      { commit: sha, branch: info.branch, files: files.length },
      now(),
    ),
  )
  const author = (await runOwnGit(repo, ['log', '-1', '--format=%an <%ae>', sha])).stdout.trim()
  return { commit: sha, branch: info.branch, files: files.length, author, settings }
}

async function own(repo: string, args: string[], env?: Record<string, string>): Promise<string> {
  const r = await runOwnGit(repo, args, { allowFailure: true, env })
  if (r.code !== 0)
    throw new ApiError(
      'io_error',
      `git ${args.find((a) => !a.startsWith('-') && !a.includes('='))}: ${(r.stderr || r.stdout).trim()}`,
    )
  return r.stdout
}
