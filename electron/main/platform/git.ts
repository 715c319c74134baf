/**
 * Small git helpers. Git is always run with an argument array (never a shell string), with the workspace as cwd and
 * the allow-listed environment of commands (command-env.ts), never the server's.
 *
 * A repository's own config can name programs that git runs (core.fsmonitor, hooks, filter.<driver>.clean/process,
 * diff.<driver>.textconv/command, diff.external, core.pager, gpg.program, core.sshCommand, credential.helper, ...),
 * and a command the member ran may have written that config. So the calls that need no approval (git_status,
 * git_diff, gitHead, ...) override every such key and run in a read-only sandbox when there is one. `write` calls
 * (git_commit's add and commit, approved like a command) run in the command sandbox; the repository's hooks and filter
 * drivers only when the policy allows them (sandbox.gitHooks), else hooks are off and filter drivers refused.
 */
import { realpathSync } from 'node:fs'
import path from 'node:path'
import { commandEnv } from './command-env'
import { NO_PROGRAMS, repositoryFilters } from './git-overrides'
import { type GitResult, type RunGitOptions, spawnGit } from './git-spawn'
import { sandboxedSpawn } from './sandbox/spawn'
import { sandboxStatus } from './sandbox/status'
import { ToolError } from './tool-error'
import { assertOwnRepository } from './tree-git'

/** The subset of a tool's context (runtime/tools/types.ts ToolContext) the git helpers need. */
export type GitContext = Pick<RunGitOptions, 'signal' | 'sandbox' | 'onProcess'>

/** Subcommands that hash work-tree files through the clean filter when the index is stale. */
const FILTERING = new Set(['status', 'diff'])

function realOrResolved(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)
/** Runs `git <args>` in `root`. Throws ToolError 'git_error' on non-zero exit unless `allowFailure`. */
export async function runGit(root: string, args: string[], opts: RunGitOptions = {}): Promise<GitResult> {
  const env = commandEnv(opts.sandbox)
  const config = NO_PROGRAMS.flatMap((kv) => ['-c', kv])
  let gitArgs: string[]
  let extraEnv: Record<string, string> = {}
  if (opts.write) {
    if (!opts.sandbox?.gitHooks) {
      config.push('-c', 'core.hooksPath=/dev/null')
      // Committing without the repository's filters would commit other content than the repository intends.
      const filters = await repositoryFilters(root, env, opts.signal)
      if (filters.drivers.length > 0) {
        throw new ToolError(
          'git_programs_refused',
          `This repository's git config defines filter drivers (${filters.drivers.join(', ')}) that git add and git commit ` +
            "would run. Allow the repository's git programs (git hooks) in the member's settings, or commit outside Concord.",
        )
      }
    }
    // Agents do not sign with the user's key (and ~/.gnupg is hidden from the sandbox).
    config.push('-c', 'commit.gpgSign=false')
    // The writable set comes from Concord's records, never from files in the tree (a `.git` file or `commondir` an
    // agent wrote would otherwise widen it): a task's tree is its own repository, so the tree is all that is written.
    if (opts.sandbox?.dataDir && within(root, realOrResolved(opts.sandbox.dataDir)))
      assertOwnRepository(root, !(await sandboxStatus()).available)
    gitArgs = [...config, ...args]
  } else {
    config.push('-c', 'core.hooksPath=/dev/null') // post-index-change
    if (FILTERING.has(args[0] ?? '')) extraEnv = (await repositoryFilters(root, env, opts.signal)).env
    gitArgs = [...config, '--no-optional-locks', ...args]
  }
  // writableGitDir: git_commit's add and commit (hooks and programs off) write a shared checkout's `.git`, which the
  // sandbox keeps read-only for commands (SandboxPolicy.userCheckout).
  const plan = await sandboxedSpawn(['git', ...gitArgs], {
    root,
    policy: opts.sandbox,
    readOnly: !opts.write,
    env: { ...env, ...extraEnv },
    writableGitDir: opts.write === true,
  })
  return spawnGit(plan.file, plan.args, root, plan.env, opts, args[0])
}

/** SHA of the HEAD commit, or null when the repository has no commits yet (or `root` is not a git repository). */
export async function gitHead(root: string, ctx: GitContext = {}): Promise<string | null> {
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { ...ctx, allowFailure: true })
  if (r.code !== 0) return null
  const sha = r.stdout.trim()
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : null
}

/** Current branch name, or null when HEAD is detached. Works before the first commit. */
export async function gitBranch(root: string, ctx: GitContext = {}): Promise<string | null> {
  const r = await runGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { ...ctx, allowFailure: true })
  return r.code === 0 ? r.stdout.trim() || null : null
}

/** True when `root` is inside a git work tree. */
export async function isGitRepo(root: string, ctx: GitContext = {}): Promise<boolean> {
  const r = await runGit(root, ['rev-parse', '--is-inside-work-tree'], { ...ctx, allowFailure: true })
  return r.code === 0 && r.stdout.trim() === 'true'
}

/**
 * Submodules are compared by their recorded commit only: checking them for local changes runs `git status` inside
 * each, under the submodule's own config, which the overrides here do not cover.
 */
export const IGNORE_DIRTY_SUBMODULES = '--ignore-submodules=dirty'

/** `git status --porcelain=v1 --branch` output (first line `## <branch>...`). */
export async function gitStatusPorcelain(root: string, ctx: GitContext = {}): Promise<string> {
  const r = await runGit(root, ['status', '--porcelain=v1', '--branch', IGNORE_DIRTY_SUBMODULES], ctx)
  return r.stdout
}

/**
 * Validates a revision argument handed to git by the model: non-empty, no leading '-', no whitespace/NUL/control
 * characters. Throws ToolError 'invalid_arguments'.
 */
export function assertSafeRef(ref: string): void {
  if (typeof ref !== 'string' || ref.length === 0)
    throw new ToolError('invalid_arguments', 'ref must be a non-empty string.')
  if (ref.startsWith('-'))
    throw new ToolError('invalid_arguments', `ref must not start with '-' (got ${JSON.stringify(ref)}).`)
  if (ref.length > 256 || /[\s\x00-\x1f\x7f]/.test(ref)) {
    throw new ToolError('invalid_arguments', `ref contains forbidden characters: ${JSON.stringify(ref)}.`)
  }
}

/**
 * Stages everything (`git add -A`) and commits; returns the new commit SHA. ToolError 'nothing_to_commit' when clean.
 * add and commit are `write` calls: in the sandbox, hooks only with sandbox.gitHooks (else also --no-verify).
 */
export async function gitCommitAll(root: string, message: string, ctx: GitContext = {}): Promise<string> {
  await runGit(root, ['add', '-A', '--', '.'], { ...ctx, write: true })
  const staged = await runGit(root, ['status', '--porcelain=v1', '--untracked-files=no', IGNORE_DIRTY_SUBMODULES], ctx)
  const hasStaged = staged.stdout.split('\n').some((l) => l.length > 1 && l[0] !== ' ' && l[0] !== '?')
  if (!hasStaged) throw new ToolError('nothing_to_commit', 'Nothing to commit: the working tree has no changes.')
  const verify = ctx.sandbox?.gitHooks ? [] : ['--no-verify']
  await runGit(root, ['commit', '--quiet', ...verify, '-m', message], { ...ctx, write: true })
  const sha = await gitHead(root, ctx)
  if (!sha) throw new ToolError('git_error', 'git commit reported success but HEAD has no commit.')
  return sha
}
