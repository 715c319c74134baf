/**
 * The OS sandbox around run_command and git: bubblewrap on Linux, sandbox-exec on macOS.
 *
 * Both are called directly rather than through @anthropic-ai/sandbox-runtime (the alternative): no extra dependency,
 * and full control over the policy, which is small. Policy: the workspace (and the member's scratch HOME and TMPDIR)
 * writable, the system read-only, a private /tmp, the user's home an empty folder (deny by default: only the install
 * roots of the programs on PATH that live there and the user's git config are shown, read-only), the data folder and
 * the `hide` list invisible, a shared checkout's `.git` read-only, no network unless allowed, and (Linux) a PID
 * namespace that dies with the command, so nothing a command starts outlives it, the turn or Concord.
 *
 * bwrap and sandbox-exec are Concord's own programs: found on the trusted path (command-env.ts trustedProgram) and
 * started with a fixed environment. The command's variables reach only the process inside the sandbox: bwrap sets
 * them with --setenv after it has started, sandbox-exec through /usr/bin/env inside the profile. So neither a
 * relative PATH entry nor a loader variable of a workspace can replace or enter Concord's own programs.
 *
 * When no sandbox is available a command still runs (own process group, allow-listed environment) and its result says
 * "not sandboxed" (status.ts). The plan a spawn builds is carried out by bwrap.ts or seatbelt.ts; home.ts decides
 * what of the user's home is shown.
 */
import { lstatSync } from 'node:fs'
import path from 'node:path'
import { commandEnv, isSecretEnvName, scratchPaths, TRUSTED_PATH, treePath, trustedProgram } from '../command-env'
import type { SandboxPolicy } from '../sandbox-policy'
import { bwrapArgs } from './bwrap'
import { hiddenPaths, homeExposed } from './home'
import { type Plan, uniqueReal } from './plan'
import { seatbeltProfile } from './seatbelt'
import { type SandboxKind, sandboxStatus } from './status'

export interface SandboxRequest {
  /** Real path of the workspace: the working directory, writable unless readOnly. */
  root: string
  policy?: SandboxPolicy
  /** Nothing writable and no network (the git calls that need no approval). */
  readOnly?: boolean
  /** More writable folders (a worktree's git folders outside the workspace). */
  writable?: string[]
  /** The environment, when the caller built it (commandEnv of the policy by default). */
  env?: Record<string, string>
  /**
   * Concord's own commit (git_commit's add and commit, hooks and programs off): the tree's `.git` stays writable for
   * this call although the policy protects it (userCheckout). Never set for a command.
   */
  writableGitDir?: boolean
  /**
   * Only the root is writable: no scratch HOME or TMPDIR, nothing else (Concord's own copy into a task's tree, which
   * an agent's link must not lead anywhere else). /tmp is still a private, empty folder.
   */
  onlyRoot?: boolean
}

export interface SandboxedSpawn {
  /** An absolute path: bwrap or sandbox-exec from the trusted path, or the program itself without a sandbox. */
  file: string
  args: string[]
  /** The environment to spawn `file` with (fixed for bwrap and sandbox-exec; the command's own runs inside). */
  env: Record<string, string>
  cwd: string
  sandboxed: boolean
  /** Why the command is not sandboxed. */
  reason?: string
}

/** How to spawn `argv` under the request's policy: inside the sandbox when there is one, else directly. */
export async function sandboxedSpawn(
  argv: [program: string, ...args: string[]],
  req: SandboxRequest,
): Promise<SandboxedSpawn> {
  const scratch = scratchPaths(req.policy)
  const env = insideEnv(req.env ?? commandEnv(req.policy, scratch), req.root)
  const program = ownProgram(argv[0])
  const st = await sandboxStatus()
  if (!st.available)
    return { file: program, args: argv.slice(1), env, cwd: req.root, sandboxed: false, reason: st.reason }
  // A read-only checkout keeps the command's scratch writable: tests can still run, only the tree cannot change.
  const rootWritable = !req.readOnly && !req.policy?.readOnlyTree
  const gitDir = rootWritable && req.policy?.userCheckout && !req.writableGitDir ? treeGitDir(req.root) : null
  const plan: Plan = {
    cwd: req.root,
    writable: req.readOnly
      ? []
      : req.onlyRoot
        ? uniqueReal(rootWritable ? [req.root] : [])
        : uniqueReal([...(rootWritable ? [req.root] : []), scratch.home, scratch.tmp, ...(req.writable ?? [])]),
    readOnly: uniqueReal([
      ...(rootWritable ? [] : [req.root]),
      ...(gitDir ? [gitDir] : []),
      ...(req.policy?.readable ?? []),
      ...homeExposed(env, [program], rootWritable ? [req.root] : []),
    ]),
    hide: hiddenPaths(req.policy),
    network: !req.readOnly && req.policy?.network === true,
    privateTmp: !req.readOnly,
  }
  return wrap(st.kind!, plan, [program, ...argv.slice(1)], env)
}

/** The launcher of the sandbox for `argv` under `plan`, with a fixed environment; `env` is the inside's. */
export function wrap(kind: SandboxKind, plan: Plan, argv: string[], env: Record<string, string>): SandboxedSpawn {
  // Secrets Concord itself hands a program (an agent's API key) stay off the command line, which every process of
  // the machine can read: they ride in the launcher's own environment, a name no launcher reads.
  const secret = Object.fromEntries(Object.entries(env).filter(([k]) => isSecretEnvName(k)))
  const plain = Object.entries(env).filter(([k]) => !isSecretEnvName(k))
  const fixed = { PATH: TRUSTED_PATH, ...secret }
  if (kind === 'bwrap') {
    const bwrap = trustedProgram('bwrap')!
    const setenv = plain.flatMap(([k, v]) => ['--setenv', k, v])
    return { file: bwrap, args: bwrapArgs(plan, argv, setenv), env: fixed, cwd: plan.cwd, sandboxed: true }
  }
  const vars = plain.map(([k, v]) => `${k}=${v}`)
  return {
    file: '/usr/bin/sandbox-exec',
    args: ['-p', seatbeltProfile(plan), '/usr/bin/env', ...vars, ...argv],
    env: fixed,
    cwd: plan.cwd,
    sandboxed: true,
  }
}

/**
 * A program Concord names by itself ('git'), as an absolute path on the trusted path, so that the PATH of the inside
 * never decides which git Concord's own call runs. A path, or a name not found there, is kept.
 */
function ownProgram(program: string): string {
  if (program.includes('/')) return program
  return trustedProgram(program) ?? program
}

/** The environment inside: PATH entries that are relative made absolute under the tree (treePath). */
export function insideEnv(env: Record<string, string>, root: string): Record<string, string> {
  return env.PATH === undefined ? env : { ...env, PATH: treePath(env.PATH, root) }
}

/**
 * The tree's own git entry (`<root>/.git`, a folder, or the file of a linked worktree), found by Concord with lstat
 * and never by following what a file in the tree says: read-only in a shared checkout, so a command cannot plant a
 * hook, `core.fsmonitor` or a new `gitdir:` that the user's own git would later follow. A git folder elsewhere is
 * read-only anyway (outside the writable set).
 */
export function treeGitDir(root: string): string | null {
  const p = path.join(root, '.git')
  try {
    const st = lstatSync(p)
    return st.isDirectory() || st.isFile() ? p : null
  } catch {
    return null
  }
}
