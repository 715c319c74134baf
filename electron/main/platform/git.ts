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
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { sandboxedSpawn } from './sandbox/spawn'
import { sandboxStatus } from './sandbox/status'
import { recordProcess } from './process-records'
import { commandEnv, ownProgramEnv, trustedProgram } from './command-env'
import { ToolError } from './tool-error'
import type { ProcessHook, SandboxPolicy } from './sandbox-policy'
import { spawnOffLoop } from './spawner'
import { OWN_CONFIG_READ, ownConfig, ownConfigKey } from './own-config-cache'

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

/** The subset of a tool's context (runtime/tools/types.ts ToolContext) the git helpers need. */
export type GitContext = Pick<RunGitOptions, 'signal' | 'sandbox' | 'onProcess'>

/**
 * Config overrides for every call: no program named by repository config runs. Command-line `-c` beats every config
 * file. Keys that need a per-name override (filter drivers) are handled by repositoryFilters. Trusted programs of the
 * user's own config are lost for these calls only where the key is overridden wholesale (fsmonitor, pager).
 */
const NO_PROGRAMS = [
  'core.quotepath=false',
  'core.fsmonitor=false', // run by status, diff and add to list changed files
  'core.pager=cat',
  'core.editor=false', // fail rather than start an editor
  'diff.external=', // with --no-ext-diff
  'log.showSignature=false', // would run gpg.program in git show
  'core.sshCommand=false',
  'credential.helper=',
  'core.askPass=',
  'gc.auto=0', // no background gc or maintenance started by a commit
  'maintenance.auto=false',
  // A merge with merge.verifySignatures runs gpg.program (any of the signature formats) on the merged commits.
  'merge.verifySignatures=false',
  'gpg.program=false',
  'gpg.openpgp.program=false',
  'gpg.x509.program=false',
  'gpg.ssh.program=false',
  'gpg.ssh.defaultKeyCommand=false',
  'protocol.ext.allow=never', // ext:: URLs run a command line
  'submodule.recurse=false', // git in submodules reads their own config, which none of this covers
  'fetch.recurseSubmodules=false',
]

/**
 * The arguments (after `git`) of Concord's own long-lived git in a repository or tree (git-batch.ts): every program
 * override of runOwnGit; `gitDir` names a tree's git folder explicitly, as runTreeGit does.
 */
export function ownBatchArgs(args: string[], tree?: string): string[] {
  const explicit = tree ? treeExplicit(tree) : []
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null'].flatMap((kv) => ['-c', kv])
  return [...explicit, ...config, '--no-optional-locks', ...args]
}

/** Subcommands that hash work-tree files through the clean filter when the index is stale. */
const FILTERING = new Set(['status', 'diff'])

/** Scopes whose config the user wrote; 'local', 'worktree' (and includes from them) are the repository's. */
const TRUSTED_SCOPES = new Set(['system', 'global'])

interface RepositoryFilters {
  /** Filter drivers the repository's own config (re)defines. */
  drivers: string[]
  /** Environment that sets them back to the user's definitions, or to nothing. */
  env: Record<string, string>
}

/** `git config -z --show-scope` output as [scope, "key\nvalue"] pairs (it prints "scope\0key\nvalue\0" per entry). */
function configEntries(stdout: string): [string, string][] {
  const parts = stdout.split('\0')
  const out: [string, string][] = []
  for (let i = 0; i + 1 < parts.length; i += 2) out.push([parts[i] ?? '', parts[i + 1] ?? ''])
  return out
}

/**
 * `filter.<driver>.clean/smudge/process` cannot be overridden with a wildcard, so: every driver the repository's
 * config defines is set back to the user's own definition (git-lfs in ~/.gitconfig keeps working), or to nothing, and
 * marked not required (a required driver without a program is a fatal error). Passed as GIT_CONFIG_KEY_<n> /
 * GIT_CONFIG_VALUE_<n> (above every config file) because a driver name may contain '=', which `-c` cannot carry.
 */
async function repositoryFilters(
  root: string,
  env: Record<string, string>,
  signal?: AbortSignal,
  entries?: [string, string][],
): Promise<RepositoryFilters> {
  entries ??= configEntries(
    (
      await spawnGit('git', ['config', '-z', '--show-scope', '--get-regexp', '^filter\\.'], root, env, {
        signal,
        allowFailure: true,
      })
    ).stdout,
  )
  const trusted = new Map<string, string>()
  const tainted = new Map<string, Set<string>>() // driver -> the program keys the repository sets
  for (const [scope, entry] of entries) {
    const nl = entry.indexOf('\n')
    const key = nl < 0 ? entry : entry.slice(0, nl)
    const value = nl < 0 ? '' : entry.slice(nl + 1)
    const m = /^filter\.(.+)\.(clean|smudge|process|required)$/is.exec(key)
    if (!m) continue
    const [, driver = '', kind = ''] = m
    const name = kind.toLowerCase()
    if (TRUSTED_SCOPES.has(scope)) trusted.set(`${driver}\0${name}`, value)
    else if (name !== 'required') tainted.set(driver, (tainted.get(driver) ?? new Set()).add(name))
  }
  const overrides: [string, string][] = []
  for (const [driver, keys] of tainted) {
    const user = (name: string): string | undefined => trusted.get(`${driver}\0${name}`)
    for (const name of ['clean', 'smudge', 'process']) {
      const v = user(name) ?? (keys.has(name) ? '' : undefined)
      if (v !== undefined) overrides.push([`filter.${driver}.${name}`, v])
    }
    // An empty `process` (set, even to nothing) makes git ignore clean and smudge: then the driver does nothing.
    const processBlanked = keys.has('process') && !user('process')
    const works = !!user('process') || (!processBlanked && !!(user('clean') || user('smudge')))
    overrides.push([`filter.${driver}.required`, works ? (user('required') ?? 'false') : 'false'])
  }
  const out: Record<string, string> = overrides.length ? { GIT_CONFIG_COUNT: String(overrides.length) } : {}
  overrides.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${i}`] = k
    out[`GIT_CONFIG_VALUE_${i}`] = v
  })
  return { drivers: [...tainted.keys()], env: out }
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/**
 * A task's tree (or a read-only checkout) is a repository of its own, so a git write there can reach nothing else —
 * unless the files in it say otherwise: a `.git` file or symlink (`gitdir: <your repository>`), a `commondir`, or a
 * symlinked ref folder would make the write land in the user's repository. Checked before every write Concord does
 * on a tree; `deep` (no OS sandbox to hold writes to the tree) also refuses any symlink among the git folder's own
 * files. ToolError 'tree_not_own_repository'.
 */
export function assertOwnRepository(tree: string, deep: boolean): void {
  const gitDir = path.join(tree, '.git')
  const refuse = (why: string): never => {
    throw new ToolError(
      'tree_not_own_repository',
      `Concord will not write with git in ${tree}: ${why}. A task's tree must stay a repository of its own; remove the task's tree (cancel and restart the task) to have it made again.`,
    )
  }
  let st
  try {
    st = lstatSync(gitDir)
  } catch {
    return refuse('it has no .git folder')
  }
  if (st.isSymbolicLink() || !st.isDirectory())
    refuse('its .git is not a folder (a .git file or link points git at another repository)')
  for (const name of ['commondir', 'gitdir'])
    if (existsSync(path.join(gitDir, name)))
      refuse(`its .git folder has a ${name} file, which points git at another repository`)
  if (!deep) return
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const p = path.join(dir, e.name)
      if (e.isSymbolicLink()) refuse(`${path.relative(tree, p)} is a symbolic link`)
      if (e.isDirectory() && depth > 0) walk(p, depth - 1)
    }
  }
  walk(gitDir, 0)
  for (const sub of ['refs', 'logs']) walk(path.join(gitDir, sub), 64)
  walk(path.join(gitDir, 'objects'), 1)
}

export interface TreeGitOptions extends Pick<RunGitOptions, 'allowFailure' | 'maxBuffer' | 'signal'> {
  /** The call writes the tree (checkout, commit): only the tree is writable; the git folder is checked first. */
  write?: boolean
  /** Folders outside the tree the call writes (a temporary index, a snapshot object store); the tree stays read-only. */
  writable?: string[]
  env?: Record<string, string>
  /** Run in the OS sandbox (when there is one) even when nothing is written: the call reads what an agent wrote. */
  sandboxed?: boolean
  /** Keep stdout as bytes (a bundle). */
  raw?: boolean
  /** Shown read-only in the sandbox: the user's object store the tree reads through alternates. */
  readable?: string[]
  /** The tree's filter and merge-driver config as treeConfig read it: several calls in a row read it once. */
  config?: TreeConfig
}

/** A tree's filter and merge-driver settings, read once for several calls (a turn's snapshot). */
export interface TreeConfig {
  entries: [string, string][]
}

/** The git folder and work tree named explicitly when the tree has its own .git (see runTreeGit). */
function treeExplicit(tree: string): string[] {
  const gitDir = path.join(tree, '.git')
  return existsSync(gitDir) ? ['--git-dir', gitDir, '--work-tree', tree] : []
}

/** Reads the config runTreeGit needs before a call; pass it as `config` to calls made right after one another. */
export async function treeConfig(tree: string, signal?: AbortSignal): Promise<TreeConfig> {
  const programs = await spawnGit('git', treeConfigCall(tree).args, tree, commandEnv(undefined), {
    signal,
    allowFailure: true,
  })
  return treeConfigOf(programs.stdout)
}

/** One git call on a tree as runTreeGit makes it: the arguments after `git`, and the variables on top of commandEnv's. */
export interface TreeGitCall {
  args: string[]
  env: Record<string, string>
}

/**
 * The arguments and variables of runTreeGit's call (tree-git-batch.ts runs many of them in one process): the git
 * folder and work tree named explicitly, every program override, the repository's filter and merge drivers set back to
 * the user's own or to nothing.
 */
export async function treeGitCall(
  tree: string,
  args: string[],
  opts: Pick<TreeGitOptions, 'config' | 'env' | 'signal' | 'write'> = {},
): Promise<TreeGitCall> {
  // Named explicitly when the tree has its own .git (task trees, checkouts, a checkout opened at its top); a shared
  // workspace opened at a folder inside a repository is found as git finds it (reads only: writes are checked first).
  const explicit = treeExplicit(tree)
  const { entries } = opts.config ?? (await treeConfig(tree, opts.signal))
  const filters = await repositoryFilters(tree, { ...commandEnv(undefined), ...opts.env }, opts.signal, entries)
  const merges = repositoryMergeDrivers(entries, Number(filters.env.GIT_CONFIG_COUNT ?? 0))
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null', 'commit.gpgSign=false', 'tag.gpgSign=false'].flatMap(
    (kv) => ['-c', kv],
  )
  return {
    args: [...explicit, ...config, ...(opts.write ? [] : ['--no-optional-locks']), ...args],
    env: { ...opts.env, ...filters.env, ...merges },
  }
}

const CONFIG_READ = ['config', '-z', '--show-scope', '--get-regexp', '^(filter|merge)\\.']

/** The call treeConfig makes (its output is read by treeConfigOf): no override, it only reads config. */
export function treeConfigCall(tree: string): TreeGitCall {
  return { args: [...treeExplicit(tree), ...CONFIG_READ], env: {} }
}

/** treeConfig's answer from the output of treeConfigCall. */
export const treeConfigOf = (stdout: string): TreeConfig => ({ entries: configEntries(stdout) })

/**
 * Concord's own git calls on a tree an agent works in (hostile: the agent may have written anything in it, its
 * .git included). The git folder and work tree are named explicitly (no `.git` file or `core.worktree` is
 * followed), no program named by config runs (the overrides of runOwnGit), and writes run in the OS sandbox with
 * only the tree (and `writable`) writable — so a symlink in the git folder that points outside cannot carry them out.
 * Without a sandbox a write is refused unless the git folder passes assertOwnRepository's deep check.
 */
export async function runTreeGit(
  tree: string,
  args: string[],
  opts: TreeGitOptions = {},
): Promise<GitResult & { raw?: Buffer }> {
  const st = await sandboxStatus()
  if (opts.write) assertOwnRepository(tree, !st.available)
  const env = commandEnv(undefined)
  const call = await treeGitCall(tree, args, opts)
  const argv: [string, ...string[]] = ['git', ...call.args]
  const vars = { ...env, ...call.env }
  const inSandbox = opts.write || opts.sandboxed || (opts.writable?.length ?? 0) > 0
  if (!inSandbox || !st.available)
    return spawnGit(argv[0], argv.slice(1), tree, vars, { ...opts, write: false }, args[0])
  const readable = opts.readable ?? []
  const plan = opts.write
    ? await sandboxedSpawn(argv, { root: tree, policy: { readable }, writable: opts.writable, env: vars })
    : opts.writable?.length
      ? await sandboxedSpawn(argv, {
          root: tree,
          policy: { readable, readOnlyTree: 'a tree Concord reads' },
          writable: opts.writable,
          env: vars,
        })
      : await sandboxedSpawn(argv, { root: tree, policy: { readable }, readOnly: true, env: vars })
  return spawnGit(plan.file, plan.args, tree, plan.env, { ...opts, write: false }, args[0])
}

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

/**
 * Merge drivers the repository's own config defines (`merge.<driver>.driver`, run on a conflict) set back to the
 * user's own definition, or to `false` (the file stays conflicted), as GIT_CONFIG_KEY_<n> entries after `start`.
 */
function repositoryMergeDrivers(entries: [string, string][], start: number): Record<string, string> {
  const trusted = new Map<string, string>()
  const tainted = new Set<string>()
  for (const [scope, entry] of entries) {
    const nl = entry.indexOf('\n')
    const key = nl < 0 ? entry : entry.slice(0, nl)
    if (!/^merge\..*\.driver$/is.test(key)) continue
    if (TRUSTED_SCOPES.has(scope)) trusted.set(key, nl < 0 ? '' : entry.slice(nl + 1))
    else tainted.add(key)
  }
  const out: Record<string, string> = {}
  let n = start
  for (const key of tainted) {
    out[`GIT_CONFIG_KEY_${n}`] = key
    out[`GIT_CONFIG_VALUE_${n}`] = trusted.get(key) ?? 'false'
    n++
  }
  if (n > start) out.GIT_CONFIG_COUNT = String(n)
  return out
}

/**
 * Concord's own git calls on the user's repository (making task trees, fetching their branches, merges, the diffs the UI
 * shows). Not in the command sandbox — they write the repository's git folder and worktrees in the data folder — but
 * no program named by the repository's config runs: the overrides of the calls that need no approval, hooks off, and
 * the repository's filter and merge drivers set back to the user's own (git-lfs keeps working) or to nothing.
 */
export async function runOwnGit(
  root: string,
  args: string[],
  opts: Pick<RunGitOptions, 'allowFailure' | 'maxBuffer' | 'signal'> & {
    env?: Record<string, string>
    /** git's stdin: this file from byte `start` on, streamed off the loop (a bundle's pack). */
    inputFile?: { path: string; start: number }
  } = {},
): Promise<GitResult> {
  const env = { ...commandEnv(undefined), ...opts.env }
  // The filter and merge-driver settings in one read (git is spawned once less per call; a turn's snapshot makes 3 calls).
  // Kept while the config files are unchanged (own-config-cache.ts): a merge makes ~15 calls on one repository.
  const key = await ownConfigKey(root, env)
  const stdout = await ownConfig(
    root,
    key,
    () => spawnGit('git', OWN_CONFIG_READ, root, env, { signal: opts.signal, allowFailure: true }),
    !opts.signal,
  )
  const entries = configEntries(stdout)
  const filters = await repositoryFilters(root, env, opts.signal, entries)
  const count = Number(filters.env.GIT_CONFIG_COUNT ?? 0)
  const merges = repositoryMergeDrivers(entries, count)
  const config = [...NO_PROGRAMS, 'core.hooksPath=/dev/null', 'commit.gpgSign=false', 'tag.gpgSign=false'].flatMap(
    (kv) => ['-c', kv],
  )
  return spawnGit('git', [...config, ...args], root, { ...env, ...filters.env, ...merges }, opts, args[0])
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
