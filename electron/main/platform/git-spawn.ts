/** Git's process: spawned off the event loop in its own process group, its output collected, its failures as ToolError. */
import { existsSync } from 'node:fs'
import { ownProgramEnv, trustedProgram } from './command-env'
import { recordProcess } from './process-records'
import type { ProcessHook, SandboxPolicy } from './sandbox-policy'
import { spawnOffLoop } from './spawner'
import { ToolError } from './tool-error'

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
  /** The member's policy: environment, hidden paths, scratch folder, gitHooks. */
  sandbox?: SandboxPolicy
  /** The call writes the repository (add, commit): a writable sandbox; hooks run only when sandbox.gitHooks. */
  write?: boolean
  onProcess?: ProcessHook
}

/** Spawns git (or the sandbox around it) in its own process group and collects its output. */
export function spawnGit(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  opts: RunGitOptions & { raw?: boolean; inputFile?: { path: string; start: number } },
  what = args[0],
): Promise<GitResult & { raw?: Buffer }> {
  const maxBuffer = opts.maxBuffer ?? 64 * 1024 * 1024
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new ToolError('aborted', 'git was interrupted.'))
    // Concord's own git run directly: found on the trusted path, with a fixed environment (ownProgramEnv), so a
    // workspace's PATH (node_modules/.bin) cannot name the git Concord runs as the user.
    const own = file === 'git'
    // Off the event loop (platform/spawner.ts): a fork of this process would stall every stream and request.
    const child = spawnOffLoop(own ? (trustedProgram('git') ?? 'git') : file, args, {
      cwd,
      env: own ? ownProgramEnv(env) : env,
      detached: true,
      inputFile: opts.inputFile,
    })
    let ended = (): void => {}
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let failure: ToolError | undefined
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const onAbort = (): void => {
      failure ??= new ToolError('aborted', 'git was interrupted.')
      kill()
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    child.on('spawn', () => {
      if (opts.write) ended = recordProcess(child.pid, opts.onProcess)
      if (opts.signal?.aborted) kill()
    })
    const collect = (into: Buffer[]) => (c: Buffer) => {
      size += c.length
      if (size > maxBuffer) {
        failure ??= new ToolError('git_error', `git ${what ?? ''} printed more than ${maxBuffer} bytes.`)
        kill()
      } else into.push(c)
    }
    child.stdout.on('data', collect(out))
    child.stderr.on('data', collect(err))
    child.on('error', (e: NodeJS.ErrnoException) => {
      // ENOENT is also what spawning in a folder that is gone answers (a tree removed meanwhile): said as such.
      failure ??=
        e.code === 'ENOENT' && !existsSync(cwd)
          ? new ToolError('git_error', `git ${what ?? ''} failed: the folder ${cwd} does not exist (any more).`)
          : e.code === 'ENOENT'
            ? new ToolError('git_missing', 'git is not installed or not on PATH.')
            : new ToolError('git_error', `git ${what ?? ''} failed: ${e.message}`)
    })
    child.on('close', (code) => {
      opts.signal?.removeEventListener('abort', onAbort)
      ended()
      if (failure) return reject(failure)
      const bytes = Buffer.concat(out)
      const stdout = opts.raw ? '' : bytes.toString('utf8')
      const stderr = Buffer.concat(err).toString('utf8')
      if (code === 0) return resolve(opts.raw ? { stdout, stderr, code, raw: bytes } : { stdout, stderr, code })
      if (/^bwrap: execvp git/m.test(stderr))
        return reject(new ToolError('git_missing', 'git is not installed or not on PATH.'))
      if (opts.allowFailure && code !== null) return resolve({ stdout, stderr, code })
      const detail = (stderr || stdout || '').trim() || (code === null ? 'killed' : `exit code ${code}`)
      reject(new ToolError('git_error', `git ${what ?? ''} failed: ${detail}`))
    })
  })
}
