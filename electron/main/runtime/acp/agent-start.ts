/**
 * An ACP turn's agent process: one per member, kept alive across turns, in the OS sandbox, with Concord's tools on the
 * member's gateway socket; a changed configuration (command, environment, tree) restarts it.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path'
import type { McpServer, McpServerStdio } from '@agentclientprotocol/sdk'
import type { McpGateway } from '../mcp/agent-gateway'
import { appBinding } from '../mcp/app-binding'
import { now } from '../../harness/ids'
import { envRefusal, scratchPaths } from '../../platform/command-env'
import { sandboxedAgentSpawn } from '../../platform/sandbox/agent-spawn'
import type { SandboxedSpawn } from '../../platform/sandbox/spawn'
import { sandboxStatus } from '../../platform/sandbox/status'
import type { ProcessHook } from '../../platform/sandbox-policy'
import type { MemberHost } from '../member-host'
import type { AcpTurnEnv } from './turn-env'
import { AgentStartError, type AgentProcess } from './agent-process'
import { concordOverHttp } from './declined-tools'
import { missingOnRunner, remoteAgentSpawn, remoteMcpEntry, remoteSocket, socketHere } from '../runner/remote-agent'
import { agentCommand, agentPresets, notInstalledText } from './presets'
import type { AgentPreset } from './agents/agent-preset'

const START_TIMEOUT_MS = 60_000

/** The running agent, and what its sessions are opened with. */
export interface StartedAgent {
  agent: AgentProcess
  /** Started for this turn (not the process of an earlier one). */
  fresh: boolean
  sandboxed: boolean
  /** Why it is not sandboxed, when it is not. */
  notSandboxed?: string
  /**
   * Concord's MCP server, for session/new and session/load when the agent does not take it in its config (the turn
   * adds the repository's MCP servers: repo-mcp-turn.ts).
   */
  sessionMcp: McpServer[]
  sessionMeta: { _meta?: Record<string, unknown> }
  /** The member's gateway, and how many agents had connected to it before this process started (declined tools). */
  gateway: McpGateway
  mcpConnectionsBefore: number
}

/**
 * The agent's environment: an allow-list, the member's own variables and key; never Concord's or other members'
 * secrets. Also the folders of its own state, which its sandbox leaves writable.
 */
function agentEnv(env: AcpTurnEnv): { vars: Record<string, string>; stateDirs: string[] } {
  const m = env.member
  const preset = agentPresets[m.agent!]
  const out: Record<string, string> = {}
  for (const k of [
    'PATH',
    'HOME',
    'USER',
    'LOGNAME',
    'LANG',
    'LC_ALL',
    'TERM',
    'TMPDIR',
    'SHELL',
    'SYSTEMROOT',
    'APPDATA',
    'LOCALAPPDATA',
  ]) {
    const v = process.env[k]
    if (v !== undefined) out[k] = v
  }
  const stateDirs: string[] = []
  if (m.agent_isolated_home) {
    const home = join(env.dataDir, 'agents', env.ctx.wsId, `m${m.id}`)
    for (const v of preset.homeVariables) {
      const dir = v === 'HOME' ? home : join(home, `.${v.toLowerCase()}`)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      out[v] = dir
    }
    stateDirs.push(home)
  } else {
    // The user's own login: the agent's folders in the real home stay writable (the rest of the home does not).
    for (const f of preset.stateFiles) {
      const p = join(homedir(), f)
      if (!f.endsWith('.json')) mkdirSync(p, { recursive: true, mode: 0o700 })
      stateDirs.push(p)
    }
  }
  Object.assign(out, agentOwnEnv(env))
  return { vars: out, stateDirs }
}

/**
 * The agent's own variables: the preset's, the member's and its key — what it gets wherever it runs (on a runner, the
 * runner's login provides the rest).
 */
function agentOwnEnv(env: AcpTurnEnv): Record<string, string> {
  const m = env.member
  const preset = agentPresets[m.agent!]
  const out: Record<string, string> = {}
  // The member's own variables were checked when saved (members.create/update: envRefusal); one saved before a rule
  // existed (LD_PRELOAD, NODE_OPTIONS, a secret-looking name, HOME, a variable carrying the policy) is left out. They reach only the agent inside its
  // sandbox: bwrap and the agent's program are found on Concord's own path, not on this PATH (sandboxedAgentSpawn).
  const own = Object.entries(JSON.parse(m.agent_env) as Record<string, string>).filter(
    ([k, v]) => envRefusal(k, v) === null && !preset.policyEnv?.includes(k),
  )
  Object.assign(out, preset.env, Object.fromEntries(own))
  // The key from the secret store, in the variable the member names (a custom agent's) or the preset's: in this
  // process's environment only (a secret-looking name rides in the launcher's environment, never on a command line).
  const keyVariable = m.agent_key_variable ?? preset.keyVariable
  if (env.apiKey && keyVariable) out[keyVariable] = env.apiKey
  return out
}

/** Whether `command` names a program that can be run (a path, or a name found on PATH). */
function findProgram(command: string, pathVar: string | undefined): boolean {
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK)
      return statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (isAbsolute(command) || command.includes('/')) return runnable(resolve(command))
  return (pathVar ?? '').split(delimiter).some((d) => d && runnable(join(d, command)))
}

/** The member's agent, running (started now if needed); or why it cannot run, in words for the session. */
export async function startAgent(env: AcpTurnEnv, host: MemberHost): Promise<StartedAgent | { error: string }> {
  const member = env.member
  const preset = agentPresets[member.agent!]
  const remote = env.remote?.place
  const concordSandbox = !remote && (await sandboxStatus()).available
  const { command, args } = agentCommand(
    member,
    preset.sandboxArgs?.({ concordSandbox, readOnly: !!env.sandbox?.readOnlyTree }),
    !!remote,
  )
  const gateway = await memberGateway(env, host)
  if ('error' in gateway) return gateway
  const entry = gateway.serverEntry('concord')
  const tools = concordTools(
    preset,
    remote ? remoteMcpEntry(entry, remoteSocket(remote, env.ctx.wsId, host.memberId)) : entry,
  )
  args.push(...tools.args)
  const here = remote && socketHere(remote, env.ctx.wsId, host.memberId)
  if (here) {
    try {
      await gateway.listenAt(here)
    } catch (err) {
      return {
        error: `Concord could not open the socket ${here} for ${remote.channel.label}: ${err instanceof Error ? err.message : String(err)}`,
      }
    }
  }
  const spawn = remote
    ? remoteAgentSpawn(remote, {
        argv: [command, ...args],
        vars: { ...agentOwnEnv(env), ...tools.env },
        homes: preset.homeVariables,
        isolatedHome: !!member.agent_isolated_home,
        wsId: env.ctx.wsId,
        memberId: host.memberId,
        gatewaySocket: gateway.address,
        stateFiles: preset.stateFiles,
        readOnly: !!env.sandbox?.readOnlyTree,
      })
    : await localSpawn(env, gateway, command, args, tools.env)
  if ('error' in spawn) return spawn
  const workspaceConfig = (preset.workspaceConfig ?? [])
    .map((f) => join(env.workspaceRoot, f))
    .filter((p) => existsSync(p))
  if (!spawn.sandboxed && workspaceConfig.length) {
    return {
      error: `${preset.label} was not started: this folder has ${workspaceConfig.map((p) => relative(env.workspaceRoot, p)).join(' and ')}, which ${preset.label} would apply (MCP servers, programs it runs, its environment), and without the OS sandbox (${spawn.reason ?? 'none here'}) Concord cannot hide them from it. Remove them from the repository, or run Concord where the sandbox works.`,
    }
  }
  const mcpConnectionsBefore = gateway.connections
  const before = env.agents.get(host.memberId)
  const agent = await ensureAgent(env, host, spawn, command)
  if ('error' in agent) return agent
  const concordMcp = await sessionConcordMcp(tools.sessionMcp, agent, preset, gateway, env.remote?.place.channel.label)
  if ('error' in concordMcp) return concordMcp
  return {
    agent,
    fresh: agent !== before,
    sandboxed: spawn.sandboxed,
    notSandboxed: spawn.reason,
    sessionMcp: concordMcp,
    sessionMeta: tools.sessionMeta,
    gateway,
    mcpConnectionsBefore,
  }
}

/** The agent on this machine: in the OS sandbox where there is one, its program looked for first. */
async function localSpawn(
  env: AcpTurnEnv,
  gateway: McpGateway,
  command: string,
  args: string[],
  toolEnv: Record<string, string> | undefined,
): Promise<SandboxedSpawn | { error: string }> {
  const preset = agentPresets[env.member.agent!]
  const { vars, stateDirs } = agentEnv(env)
  Object.assign(vars, toolEnv)
  const workspaceConfig = (preset.workspaceConfig ?? [])
    .map((f) => join(env.workspaceRoot, f))
    .filter((p) => existsSync(p))
  // Inside the sandbox a missing program is the sandbox's failure to start: look for it first.
  if (!findProgram(command, vars.PATH)) return { error: notInstalledText(env.member.agent!, command) }
  return sandboxedAgentSpawn([command, ...args], vars, {
    root: env.workspaceRoot,
    readOnly: !!env.sandbox?.readOnlyTree,
    userCheckout: env.sandbox?.userCheckout,
    // From Concord's records only (never the tree's `.git` file): a task's tree is its own repository, so the tree is
    // all it writes; the user's object store it reads through alternates is shown read-only (sandbox.readable).
    writable: stateDirs,
    readable: [gateway.dir, ...(env.sandbox?.readable ?? [])],
    tmp: scratchPaths(env.sandbox).tmp,
    dataDir: env.dataDir,
    hide: workspaceConfig,
  })
}

/** The member's gateway socket, the agent's way to Concord's tools (opened once, for every turn of the member). */
async function memberGateway(env: AcpTurnEnv, host: MemberHost): Promise<McpGateway | { error: string }> {
  try {
    return await env.agents.gateway(host.memberId, () =>
      appBinding({ ...env.mcp, turn: () => env.agents.turn(host.memberId) }),
    )
  } catch (err) {
    return {
      error: `Concord could not open the local socket ${agentPresets[env.member.agent!].label} reaches its tools through: ${err instanceof Error ? err.message : String(err)}`,
    }
  }
}

/**
 * How Concord's MCP server reaches the agent: in its configuration (arguments and environment) where the preset knows
 * how, else in session/new and session/load.
 */
function concordTools(
  preset: AgentPreset,
  concordMcp: McpServerStdio,
): Pick<StartedAgent, 'sessionMcp' | 'sessionMeta'> & { args: string[]; env: Record<string, string> | undefined } {
  const viaConfig = preset.mcpArgs?.(concordMcp)
  return {
    args: viaConfig ? viaConfig.args : [],
    env: viaConfig?.env,
    sessionMcp: viaConfig ? [] : [concordMcp],
    sessionMeta: preset.sessionMeta ? { _meta: preset.sessionMeta(concordMcp.name) } : {},
  }
}

/**
 * Concord's entry for session/new, once the agent's capabilities are known: the stdio one, or the same tools over HTTP
 * for an agent that takes only that (declined-tools.ts concordOverHttp).
 */
async function sessionConcordMcp(
  stdio: McpServer[],
  agent: AgentProcess,
  preset: AgentPreset,
  gateway: McpGateway,
  runner?: string,
): Promise<McpServer[] | { error: string }> {
  if (!stdio.length || !concordOverHttp(agent.init, preset)) return stdio
  if (runner)
    return {
      error: `${preset.label} takes MCP servers only over HTTP, and Concord's tools reach an agent on ${runner} only as a program it starts (stdio): run this member on this machine.`,
    }
  try {
    return [await gateway.httpEntry(stdio[0]!.name)]
  } catch (err) {
    return {
      error: `Concord could not open the loopback port ${preset.label} reaches its tools through over HTTP: ${err instanceof Error ? err.message : String(err)}`,
    }
  }
}

/** The member's agent process from the pool: the running one when its configuration is unchanged, else a new one. */
async function ensureAgent(
  env: AcpTurnEnv,
  host: MemberHost,
  spawn: SandboxedSpawn & { preamble?: string },
  command: string,
): Promise<AgentProcess | { error: string }> {
  const preset = agentPresets[env.member.agent!]
  const fingerprint = JSON.stringify([spawn.file, spawn.args, spawn.env, env.workspaceRoot, spawn.preamble])
  try {
    const spec = {
      command: spawn.file,
      args: spawn.args,
      env: spawn.env,
      cwd: spawn.cwd,
      fingerprint,
      notSandboxed: spawn.reason,
      onProcess: recordProcess(env.ctx.store),
      preamble: spawn.preamble,
    }
    return await env.agents.ensure(host.memberId, spec, preset.label, START_TIMEOUT_MS)
  } catch (err) {
    const runner = env.remote?.place.channel.label
    if (err instanceof AgentStartError && err.code === 'agent_missing')
      return {
        error: runner
          ? `Concord could not start ssh to reach ${runner}: install OpenSSH's client.`
          : notInstalledText(env.member.agent!, command),
      }
    if (runner && err instanceof AgentStartError && missingOnRunner(err.message))
      return {
        error: `${preset.label} is not installed on ${runner} (${command} was not found there): ${notInstalledText(env.member.agent!, command)}`,
      }
    return { error: err instanceof Error ? err.message : String(err) }
  }
}

/** The agent's process group is recorded like a command's, so the next start ends it if Concord dies (recovery.ts). */
function recordProcess(store: AcpTurnEnv['ctx']['store']): ProcessHook {
  return (p) => {
    const id = store.steps.addProcess(null, p.pid, p.pgid, p.startTime ?? null, now())
    return () => {
      try {
        store.steps.removeProcess(id)
      } catch {
        // The workspace was closed first: the record goes at the next start (recovery.ts).
      }
    }
  }
}
