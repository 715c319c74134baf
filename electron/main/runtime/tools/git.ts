/**
 * Small git helpers. Git is always run through execFile with an argument array (never a shell string), with the
 * workspace as cwd and with the environment variables that could redirect git to another repository removed.
 */
import { execFile } from 'node:child_process'
import { ToolError } from './types'

export interface GitResult {
  stdout: string
  stderr: string
  /** Exit code (0 on success). */
  code: number
}

export interface RunGitOptions {
  signal?: AbortSignal
  /** Resolve (instead of throwing ToolError 'git_error') when git exits non-zero. */
  allowFailure?: boolean
  maxBuffer?: number
}

/** Variables that would make git operate on a repository other than the one in cwd. */
const REDIRECTING_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CEILING_DIRECTORIES',
]

/**
 * process.env without the variables that would point git at another repository, and with git's interactive prompts
 * and pagers disabled. Also used for run_command.
 */
export function sanitizedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' }
  for (const k of REDIRECTING_ENV) delete env[k]
  return env
}

/** Runs `git <args>` in `root`. Throws ToolError 'git_error' on non-zero exit unless `allowFailure`. */
export function runGit(root: string, args: string[], opts: RunGitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.quotepath=false', ...args],
      {
        cwd: root,
        env: sanitizedEnv(),
        maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
        signal: opts.signal,
        encoding: 'utf8',
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr, code: 0 })
        const e = err as NodeJS.ErrnoException & { code?: unknown }
        if (e.name === 'AbortError') return reject(new ToolError('aborted', 'git was interrupted.'))
        if (e.code === 'ENOENT') return reject(new ToolError('git_missing', 'git is not installed or not on PATH.'))
        if (typeof e.code === 'number') {
          if (opts.allowFailure) return resolve({ stdout, stderr, code: e.code })
          const detail = (stderr || stdout || '').trim() || `exit code ${e.code}`
          return reject(new ToolError('git_error', `git ${args[0] ?? ''} failed: ${detail}`))
        }
        reject(new ToolError('git_error', `git ${args[0] ?? ''} failed: ${e.message}`))
      },
    )
  })
}

/** SHA of the HEAD commit, or null when the repository has no commits yet (or `root` is not a git repository). */
export async function gitHead(root: string): Promise<string | null> {
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { allowFailure: true })
  if (r.code !== 0) return null
  const sha = r.stdout.trim()
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : null
}

/** Current branch name, or null when HEAD is detached. Works before the first commit. */
export async function gitBranch(root: string): Promise<string | null> {
  const r = await runGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFailure: true })
  return r.code === 0 ? r.stdout.trim() || null : null
}

/** True when `root` is inside a git work tree. */
export async function isGitRepo(root: string): Promise<boolean> {
  const r = await runGit(root, ['rev-parse', '--is-inside-work-tree'], { allowFailure: true })
  return r.code === 0 && r.stdout.trim() === 'true'
}

/** `git status --porcelain=v1 --branch` output (first line `## <branch>...`). */
export async function gitStatusPorcelain(root: string, signal?: AbortSignal): Promise<string> {
  const r = await runGit(root, ['status', '--porcelain=v1', '--branch'], { signal })
  return r.stdout
}

/**
 * Validates a revision argument handed to git by the model: non-empty, no leading '-', no whitespace/NUL/control
 * characters. Throws ToolError 'invalid_arguments'.
 */
export function assertSafeRef(ref: string): void {
  if (typeof ref !== 'string' || ref.length === 0) throw new ToolError('invalid_arguments', 'ref must be a non-empty string.')
  if (ref.startsWith('-')) throw new ToolError('invalid_arguments', `ref must not start with '-' (got ${JSON.stringify(ref)}).`)
  if (ref.length > 256 || /[\s\x00-\x1f\x7f]/.test(ref)) {
    throw new ToolError('invalid_arguments', `ref contains forbidden characters: ${JSON.stringify(ref)}.`)
  }
}

/** Stages everything (`git add -A`) and commits; returns the new commit SHA. ToolError 'nothing_to_commit' when clean. */
export async function gitCommitAll(root: string, message: string, signal?: AbortSignal): Promise<string> {
  await runGit(root, ['add', '-A', '--', '.'], { signal })
  const staged = await runGit(root, ['status', '--porcelain=v1', '--untracked-files=no'], { signal })
  const hasStaged = staged.stdout.split('\n').some((l) => l.length > 1 && l[0] !== ' ' && l[0] !== '?')
  if (!hasStaged) throw new ToolError('nothing_to_commit', 'Nothing to commit: the working tree has no changes.')
  await runGit(root, ['commit', '--quiet', '-m', message], { signal })
  const sha = await gitHead(root)
  if (!sha) throw new ToolError('git_error', 'git commit reported success but HEAD has no commit.')
  return sha
}
