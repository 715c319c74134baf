/**
 * The forge (GitHub) as Concord sees it for a task's pull request: where a remote points (owner/repo from its URL),
 * the push (the user's own git, with the user's environment and credentials, which Concord never reads) and the REST
 * calls through Octokit. The token comes from the caller (the secret store); it is never logged nor put in an error.
 */
import { Octokit } from '@octokit/rest'
import { ApiError } from '../../../shared/errors'
import { spawnGit } from '../platform/git-spawn'

export const DEFAULT_FORGE_URL = 'https://api.github.com'

/** owner/repo of a github.com remote URL (git@github.com:o/r.git, ssh://git@github.com/o/r, https://github.com/o/r). */
export function githubRepoOf(url: string): { owner: string; repo: string } | null {
  const m =
    /^(?:ssh:\/\/)?[\w.-]+@github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i.exec(url) ??
    /^(?:https?|git):\/\/(?:[^@/]+@)?(?:www\.)?github\.com(?::\d+)?\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i.exec(url)
  return m ? { owner: m[1]!, repo: m[2]! } : null
}

/** Credentials written into URLs (https://user:token@host) taken out of what git said. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][\w+.-]*:\/\/)[^@\s/]+@/gi, '$1')
}

/** The remote's configured URL (not rewritten by insteadOf), and the forge repository it names. */
export async function remoteRepo(
  repoPath: string,
  remote: string,
): Promise<{ url: string; owner: string; repo: string }> {
  const env = process.env as Record<string, string>
  const r = await spawnGit('git', ['config', '--get', `remote.${remote}.url`], repoPath, env, { allowFailure: true })
  const url = r.stdout.trim()
  if (r.code !== 0 || !url) {
    const all = await spawnGit('git', ['remote'], repoPath, env, { allowFailure: true })
    const names = all.stdout.split('\n').filter(Boolean)
    throw new ApiError(
      'no_remote',
      names.length
        ? `the repository has no remote named ${remote} (it has ${names.join(', ')})`
        : 'the repository has no remote: add one (git remote add origin <url>) and push again',
      { remote, remotes: names },
    )
  }
  const named = githubRepoOf(url)
  if (!named)
    throw new ApiError(
      'not_github_remote',
      `the remote ${remote} (${withoutCredentials(url)}) is not a github.com repository: Concord opens pull requests on GitHub only`,
      { remote },
    )
  return { url: withoutCredentials(url), ...named }
}

/**
 * `git push <remote> <branch>` as the user runs it: their environment (ssh agent, credential helper), their git.
 * Concord passes no credential; a failure carries git's stderr with any URL credentials taken out.
 */
export async function pushBranch(repoPath: string, remote: string, branch: string): Promise<void> {
  const r = await spawnGit(
    'git',
    ['push', remote, `refs/heads/${branch}:refs/heads/${branch}`],
    repoPath,
    { ...(process.env as Record<string, string>), GIT_TERMINAL_PROMPT: '0' },
    { allowFailure: true },
  )
  if (r.code !== 0) {
    const stderr = withoutCredentials(r.stderr.trim())
    throw new ApiError('push_failed', `git push ${remote} ${branch} failed: ${stderr || `exit code ${r.code}`}`, {
      stderr,
    })
  }
}

export interface ForgeCheck {
  name: string
  state: 'pending' | 'success' | 'failure'
  url: string | null
}

export interface ForgeComment {
  id: number
  author: string
  body: string
  path: string | null
  line: number | null
  url: string
}

export interface ForgePull {
  number: number
  url: string
  headSha: string
  state: 'open' | 'closed' | 'merged'
  mergeCommit: string | null
  /** The base branch's commit the forge merged into (or would). */
  baseSha: string | null
}

/** The REST calls a task's pull request needs, on one repository, through the real Octokit client. */
export class Forge {
  private readonly gh: Octokit

  constructor(
    baseUrl: string,
    token: string,
    private readonly owner: string,
    private readonly repo: string,
  ) {
    const quiet = () => undefined
    this.gh = new Octokit({
      auth: token,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      userAgent: 'Concord',
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
      request: { retries: 0 },
    })
  }

  async openPull(p: { title: string; head: string; base: string; body: string }): Promise<ForgePull> {
    const r = await this.call(() => this.gh.pulls.create({ owner: this.owner, repo: this.repo, ...p }))
    return pullOf(r.data)
  }

  async pull(number: number): Promise<ForgePull> {
    const r = await this.call(() => this.gh.pulls.get({ owner: this.owner, repo: this.repo, pull_number: number }))
    return pullOf(r.data)
  }

  /** The combined status and the check runs of a commit, as one list. */
  async checks(sha: string): Promise<ForgeCheck[]> {
    const ref = { owner: this.owner, repo: this.repo, ref: sha }
    const [status, runs] = await Promise.all([
      this.call(() => this.gh.repos.getCombinedStatusForRef(ref)),
      this.call(() => this.gh.checks.listForRef(ref)),
    ])
    const out: ForgeCheck[] = status.data.statuses.map((s) => ({
      name: s.context,
      state: s.state === 'success' ? 'success' : s.state === 'pending' ? 'pending' : 'failure',
      url: s.target_url ?? null,
    }))
    for (const run of runs.data.check_runs)
      out.push({
        name: run.name,
        state:
          run.status !== 'completed'
            ? 'pending'
            : ['success', 'neutral', 'skipped'].includes(run.conclusion ?? '')
              ? 'success'
              : 'failure',
        url: run.html_url ?? null,
      })
    return out
  }

  async reviewComments(number: number): Promise<ForgeComment[]> {
    const r = await this.call(() =>
      this.gh.pulls.listReviewComments({ owner: this.owner, repo: this.repo, pull_number: number, per_page: 100 }),
    )
    return r.data.map((c) => ({
      id: c.id,
      author: c.user?.login ?? 'someone',
      body: c.body,
      path: c.path ?? null,
      line: c.line ?? c.original_line ?? null,
      url: c.html_url,
    }))
  }

  /** A forge failure as forge_error with its status and message; never the request (it holds the token). */
  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f()
    } catch (err) {
      const e = err as { status?: number; message?: string; response?: { data?: { message?: string } } }
      const message = e.response?.data?.message ?? e.message ?? String(err)
      const status = typeof e.status === 'number' ? e.status : 0
      throw new ApiError(
        'forge_error',
        `the forge answered ${status || 'nothing'}: ${message}`.replace(/(token|bearer)\s+\S+/gi, '$1 …'),
        { status, message },
      )
    }
  }
}

function pullOf(d: {
  number: number
  html_url: string
  head: { sha: string }
  base?: { sha: string }
  state: string
  merged?: boolean | null
  merged_at?: string | null
  merge_commit_sha?: string | null
}): ForgePull {
  const merged = d.merged === true || !!d.merged_at
  return {
    number: d.number,
    url: d.html_url,
    headSha: d.head.sha,
    state: merged ? 'merged' : d.state === 'closed' ? 'closed' : 'open',
    mergeCommit: merged ? (d.merge_commit_sha ?? null) : null,
    baseSha: d.base?.sha ?? null,
  }
}

/** The CI of a head as one word: any failure fails it, any pending keeps it pending, none is none. */
export function ciStateOf(checks: ForgeCheck[]): 'pending' | 'success' | 'failure' | 'none' {
  if (!checks.length) return 'none'
  if (checks.some((c) => c.state === 'failure')) return 'failure'
  if (checks.some((c) => c.state === 'pending')) return 'pending'
  return 'success'
}
