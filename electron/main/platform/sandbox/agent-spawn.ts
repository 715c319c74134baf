/**
 * The sandbox of an external agent (ACP): the mounts of run_command, the agent's own state writable, its program's
 * install root readable, and the network on.
 */
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'
import { hiddenPaths, homeExposed } from './home'
import { type Plan, real, uniqueReal } from './plan'
import { insideEnv, type SandboxedSpawn, treeGitDir, wrap } from './spawn'
import { sandboxStatus } from './status'

/** What an external agent (ACP) may touch: its working folder and its own state, with the network on. */
export interface AgentSandboxRequest {
  /** The member's working folder (task worktree or shared checkout): the working directory, writable unless readOnly. */
  root: string
  /** The checkout is read-only for this turn (verifying): the agent may still write its own state. */
  readOnly?: boolean
  /** The agent's own state (isolated home, CODEX_HOME, ...), its TMPDIR, a worktree's git folders. */
  writable: string[]
  /** Shown read-only even where hidden (the folder of the socket its MCP server connects through). */
  readable?: string[]
  /** Concord's data folder: invisible, like for commands (other members' homes are in it). */
  dataDir?: string
  /** More paths hidden (folders look empty, files read as empty). */
  hide?: string[]
  /** TMPDIR under sandbox-exec (bwrap gives the agent a private, empty /tmp of its own). */
  tmp: string
  /** The folder is the user's own checkout (a shared workspace): its `.git` is read-only (see treeGitDir). */
  userCheckout?: boolean
}

/**
 * How to spawn an external agent: the same mounts as run_command (private /tmp, the rest read-only, the home an empty
 * folder but for the agent's own state, its program and the user's git config, the data folder hidden, a PID
 * namespace), but with the network on, since the agent must reach its model endpoint. Without a sandbox it runs
 * directly and `reason` says why.
 */
export async function sandboxedAgentSpawn(
  argv: [program: string, ...args: string[]],
  env: Record<string, string>,
  req: AgentSandboxRequest,
): Promise<SandboxedSpawn> {
  // The agent's program is found on Concord's own PATH, never on the member's: env.PATH reaches only the inside.
  const program = agentProgram(argv[0])
  const st = await sandboxStatus()
  const inside = insideEnv(env, req.root)
  if (!st.available)
    return { file: program, args: argv.slice(1), env: inside, cwd: req.root, sandboxed: false, reason: st.reason }
  // A fresh /tmp per process: measured with Gemini CLI 0.61, a temporary folder kept from a killed process makes the
  // next one wait at start.
  const tmp = st.kind === 'bwrap' ? '/tmp' : req.tmp
  const vars = { ...inside, TMPDIR: tmp }
  const argvAbs: [string, ...string[]] = [program, ...argv.slice(1)]
  const gitDir = !req.readOnly && req.userCheckout ? treeGitDir(req.root) : null
  const plan: Plan = {
    cwd: req.root,
    writable: uniqueReal([...(req.readOnly ? [] : [req.root]), ...req.writable, ...(st.kind === 'bwrap' ? [] : [tmp])]),
    readOnly: uniqueReal([
      ...(req.readOnly ? [req.root] : []),
      ...(gitDir ? [gitDir] : []),
      ...(req.readable ?? []),
      ...programRoots(argvAbs),
      ...homeExposed(vars, argvAbs, req.readOnly ? [] : [req.root]),
    ]),
    hide: hiddenPaths({ dataDir: req.dataDir, hide: req.hide }),
    network: true,
    privateTmp: true,
  }
  return wrap(st.kind!, plan, argvAbs, vars)
}

/**
 * A bare program name looked up on Concord's own PATH (absolute entries only); kept as it is when not found there (it
 * is then looked up inside the sandbox) or when it is a path.
 */
function agentProgram(program: string): string {
  if (program.includes('/')) return program
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const file = path.join(dir, program)
    try {
      accessSync(file, constants.X_OK)
      if (statSync(file).isFile()) return file
    } catch {
      // not here
    }
  }
  return program
}

/**
 * What the agent's program needs to read: for each absolute path in its command line, the outermost node_modules it
 * lives in (an adapter imports its SDK and CLI from there), else its folder. Read-only, and on top of the private
 * /tmp, so an installation under /tmp (a CI checkout, npx's cache) is still there inside the sandbox.
 */
function programRoots(argv: string[]): string[] {
  const roots: string[] = []
  for (const arg of argv) {
    if (!path.isAbsolute(arg)) continue
    const file = real(arg)
    if (!file) continue
    const parts = file.split(path.sep)
    const top = parts.indexOf('node_modules')
    roots.push(top > 0 ? parts.slice(0, top + 1).join(path.sep) : path.dirname(file))
  }
  return roots
}
