/**
 * Push and pull request (issue 33), on the user's action only: the task's branch goes to the repository's remote by
 * the user's own `git push` (their environment and credentials; Concord handles none), then a pull request is opened
 * on GitHub with the task's evidence as its body. Its CI and review comments come back on refresh (the card's Refresh,
 * and when the card opens) — never polled. A pull request merged on the forge marks the task merged.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { ForgeSettings, Task } from '../../../../shared/schemas'
import { ciStateOf, DEFAULT_FORGE_URL, Forge, pushBranch, remoteRepo } from '../../repo/forge'
import { removeTree } from '../../repo/git-repo'
import type { PullRequestRow } from '../../store/pull-requests-repo'
import { actorOf, requireDecider, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey, now, parseId } from '../ids'
import { toReports, toTask } from '../mappers'
import { scheduleBaseCheck } from '../workspace/base-moves'
import { refreshHead } from '../workspace/task-branches'
import { stopTreeRuns } from '../workspace/tree-runs'
import { workspaceSettings } from '../workspace/workspace-settings'
import { pullRequestBody, type BodyDecision } from './pull-request-body'

/** The secret store's name for a workspace's forge token. */
const tokenRef = (wsId: string) => `forge:${wsId}`

export function forgeSettings(h: Harness, ctx: Ctx): ForgeSettings {
  const raw = ctx.store.settings.get()
  return {
    baseUrl: typeof raw.forgeBaseUrl === 'string' ? raw.forgeBaseUrl : DEFAULT_FORGE_URL,
    remote: typeof raw.forgeRemote === 'string' ? raw.forgeRemote : 'origin',
    hasToken: h.secrets.has(tokenRef(ctx.wsId)),
  }
}

export function configureForge(h: Harness, ctx: Ctx, p: ParsedParams<'forge.configure'>): ForgeSettings {
  if (p.baseUrl !== undefined && !/^https?:\/\//i.test(p.baseUrl))
    throw new ApiError('invalid_params', 'baseUrl: must be an http(s) URL')
  // The key first: a file that cannot be written changes nothing else.
  if (p.token !== undefined) h.secrets.set(tokenRef(ctx.wsId), p.token)
  if (p.baseUrl !== undefined || p.remote !== undefined)
    ctx.store.transaction(() => {
      const raw = ctx.store.settings.get()
      ctx.store.settings.set({
        ...raw,
        ...(p.baseUrl !== undefined ? { forgeBaseUrl: p.baseUrl } : {}),
        ...(p.remote !== undefined ? { forgeRemote: p.remote } : {}),
      })
    })
  return forgeSettings(h, ctx)
}

function forgeFor(h: Harness, ctx: Ctx, owner: string, repo: string): Forge {
  const token = h.secrets.get(tokenRef(ctx.wsId))
  if (!token)
    throw new ApiError(
      'no_token',
      'no GitHub token is set for this workspace: add one in the workspace settings (forge.configure {token})',
    )
  return new Forge(forgeSettings(h, ctx).baseUrl, token, owner, repo)
}

export async function openPullRequest(h: Harness, ctx: Ctx, p: ParsedParams<'tasks.openPullRequest'>): Promise<Task> {
  requireDecider(actorOf(ctx, p.actorId), 'open pull requests')
  const task = taskRow(ctx, p.taskId)
  const tk = makeKey('task', task.id)
  if (task.status !== 'accepted' && task.status !== 'delivered')
    throw new ApiError('invalid_transition', `${tk} is ${task.status}; only a delivered or accepted task is pushed`)
  const branch = ctx.store.branches.get(task.id)
  if (!branch) throw new ApiError('invalid_transition', `${tk} has no branch of its own: there is nothing to push`)
  const settings = workspaceSettings(ctx)
  const repoPath = h.workspace(ctx.wsId).repoPath
  const remote = p.remote ?? forgeSettings(h, ctx).remote
  const where = await remoteRepo(repoPath, remote)
  const forge = forgeFor(h, ctx, where.owner, where.repo)
  // The branch as its tree has it now, brought into your repository, then pushed from there.
  const fresh = (await refreshHead(h, ctx, task.id).catch(() => undefined)) ?? branch
  await pushBranch(repoPath, remote, branch.branch)
  const dto = toTask(ctx.wsId, ctx.store, task)
  const pull = await forge.openPull({
    title: `${tk}: ${task.title}`,
    head: branch.branch,
    base: settings.baseBranch ?? 'main',
    body: bodyOf(ctx, dto),
  })
  const row: PullRequestRow = {
    task_id: task.id,
    remote,
    owner: where.owner,
    repo: where.repo,
    number: pull.number,
    url: pull.url,
    head_sha: pull.headSha || fresh.head || '',
    state: pull.state,
    ci_state: 'none',
    checks: '[]',
    comments: '[]',
    updated_at: now(),
  }
  ctx.store.transaction(() => {
    ctx.store.pullRequests.put(row)
    ctx.store.log.appendEvent(
      'task.pullRequestOpened',
      { taskId: task.id, remote, owner: where.owner, repo: where.repo, number: pull.number, head: row.head_sha },
      now(),
    )
  })
  return changed(ctx, task.id)
}

export async function refreshPullRequest(
  h: Harness,
  ctx: Ctx,
  p: ParsedParams<'tasks.refreshPullRequest'>,
): Promise<Task> {
  const task = taskRow(ctx, p.taskId)
  const row = ctx.store.pullRequests.get(task.id)
  if (!row) throw new ApiError('not_found', `${makeKey('task', task.id)} has no pull request`)
  const forge = forgeFor(h, ctx, row.owner, row.repo)
  const pull = await forge.pull(row.number)
  const [checks, comments] = await Promise.all([forge.checks(pull.headSha), forge.reviewComments(row.number)])
  ctx.store.transaction(() =>
    ctx.store.pullRequests.put({
      ...row,
      head_sha: pull.headSha,
      state: pull.state,
      ci_state: ciStateOf(checks),
      checks: JSON.stringify(checks),
      comments: JSON.stringify(comments),
      updated_at: now(),
    }),
  )
  const branch = ctx.store.branches.get(task.id)
  if (pull.state === 'merged' && branch && !branch.merged_commit) await markMerged(h, ctx, task.id, pull)
  return changed(ctx, task.id)
}

/**
 * Merged on the forge: the task is merged as a merge in your checkout marks it (task_branches.merged_commit, the
 * task.merged event, its tree removed, the base checked again), with the forge's merge commit.
 */
async function markMerged(
  h: Harness,
  ctx: Ctx,
  taskId: number,
  pull: { number: number; headSha: string; mergeCommit: string | null; baseSha: string | null },
): Promise<void> {
  const branch = ctx.store.branches.get(taskId)!
  const repoPath = h.workspace(ctx.wsId).repoPath
  const merged = pull.mergeCommit ?? pull.headSha
  await stopTreeRuns(ctx, taskId)
  if (branch.worktree) await removeTree(repoPath, branch.worktree).catch(() => undefined)
  ctx.store.transaction(() => {
    ctx.store.branches.setMerged(taskId, merged, now(), pull.baseSha ?? '')
    ctx.store.mergeQueue.remove(taskId)
    ctx.store.log.appendEvent(
      'task.merged',
      { taskId, commit: pull.headSha, merged, strategy: 'pull-request', pullRequest: pull.number },
      now(),
    )
  })
  void scheduleBaseCheck(h, ctx.wsId)
}

function changed(ctx: Ctx, taskId: number): Task {
  const dto = toTask(ctx.wsId, ctx.store, ctx.store.tasks.get(taskId)!)
  ctx.emit('task.changed', { workspaceId: ctx.wsId, task: dto })
  return dto
}

function bodyOf(ctx: Ctx, task: Task): string {
  const n = (id: string) => parseId(id, 'decision', 'decisionId').n
  const decisions: BodyDecision[] = task.links.map((l) => ({
    key: l.decisionKey,
    title: ctx.store.decisions.get(n(l.decisionId))?.title ?? '',
    version: l.pinnedVersion,
    state: l.state,
  }))
  const reports = toReports(ctx.wsId, ctx.store, ctx.store.reports.list(parseId(task.id, 'task', 'taskId').n))
  const keys = new Map<string, string>()
  for (const r of reports)
    for (const c of r.claims) for (const id of c.decisionIds) keys.set(id, makeKey('decision', n(id)))
  return pullRequestBody(task, decisions, reports, keys)
}
