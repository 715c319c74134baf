/**
 * One agent process per member, kept alive across turns: spawned with a scrubbed environment, spoken to over
 * ACP on its stdio, its stderr kept (the tail explains a crash), its death observed.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import type {
  ClientConnection,
  InitializeResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk'
import { McpGateway } from '../mcp/agent-gateway'
import { recordProcess } from '../../platform/process-records'
import { stopSshMasters } from '../../platform/ssh-channel'
import { removeContainers } from '../../platform/container-channel'
import type { ProcessInfo } from '../../platform/sandbox-policy'
import type { AgentTurnState } from '../mcp/app-binding'
import type { McpBinding } from '../mcp/server'
import type { RepoMcpSession } from '../repo-mcp/servers'

const STDERR_TAIL = 4000

export class AgentStartError extends Error {
  constructor(
    readonly code: 'agent_missing' | 'agent_failed',
    message: string,
  ) {
    super(message)
  }
}

export interface SessionHandlers {
  update(n: SessionNotification): void
  permission(r: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>
}

export interface SpawnSpec {
  command: string
  args: string[]
  env: Record<string, string>
  cwd: string
  /** The configuration this process was started with: another one means a restart. */
  fingerprint: string
  /** Why it runs outside the OS sandbox (undefined: inside). */
  notSandboxed?: string
  /**
   * Records the process group in the store while it runs, like a command's (see recordProcess): after a crash of
   * Concord, the next start ends an agent left running (recovery.ts).
   */
  onProcess?: (info: ProcessInfo) => () => void
  /** Written to its stdin before anything else: what a runner's launcher starts (runner/host-launcher.ts). */
  preamble?: string
}

/** The ACP SDK, loaded when the first external agent starts (not with Concord: most workspaces have none). */
type AcpSdk = typeof import('@agentclientprotocol/sdk')
let sdkLoading: Promise<AcpSdk> | null = null
const loadSdk = () => (sdkLoading ??= import('@agentclientprotocol/sdk'))

export class AgentProcess {
  readonly proc: ChildProcess
  readonly conn: ClientConnection
  init: InitializeResponse | null = null
  sessionId: string | null = null
  /** The session's modes as the agent reported them (ACP session modes), null when it offers none. */
  modes: { current: string; available: string[] } | null = null
  private stderr = ''
  private readonly sessions = new Map<string, SessionHandlers>()
  /** Resolves with a description once the process has exited (or could not start). */
  readonly exited: Promise<string>
  dead = false

  constructor(
    readonly spec: SpawnSpec,
    private readonly sdk: AcpSdk,
  ) {
    // Its own process group: the CLI it starts (and their children) are stopped with it.
    this.proc = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    })
    const recorded = recordProcess(this.proc.pid, spec.onProcess)
    this.proc.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-STDERR_TAIL)
    })
    this.exited = new Promise((resolve) => {
      this.proc.once('error', (err: NodeJS.ErrnoException) => {
        this.dead = true
        resolve(err.code === 'ENOENT' ? 'ENOENT' : err.message)
      })
      this.proc.once('exit', (code, signal) => {
        this.dead = true
        recorded()
        resolve(signal ? `killed by ${signal}` : `exit code ${code}`)
      })
    })
    // A write to a dead agent must surface as its exit, not as an unhandled EPIPE.
    this.proc.stdin!.on('error', () => {})
    if (spec.preamble) this.proc.stdin!.write(spec.preamble)
    const app = this.sdk
      .client()
      .onNotification('session/update', ({ params }) => this.sessions.get(params.sessionId)?.update(params))
      .onRequest('session/request_permission', ({ params, signal }) => {
        const s = this.sessions.get(params.sessionId)
        return s ? s.permission(params, signal) : { outcome: { outcome: 'cancelled' } }
      })
    this.conn = app.connect(
      this.sdk.ndJsonStream(
        Writable.toWeb(this.proc.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(this.proc.stdout!) as ReadableStream<Uint8Array>,
      ),
    )
  }

  /** Why the process ended, if it does within `ms` (null: still running). */
  async exitReason(ms: number): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined
    const r = await Promise.race([this.exited, new Promise<null>((res) => (timer = setTimeout(() => res(null), ms)))])
    clearTimeout(timer)
    return r
  }

  get stderrTail(): string {
    return this.stderr.trim()
  }

  /** `initialize`, failing with the agent's own words when it dies, hangs or answers garbage. */
  async initialize(timeoutMs: number, label: string): Promise<InitializeResponse> {
    let timer: NodeJS.Timeout | undefined
    const failed = (why: string) =>
      new AgentStartError(
        'agent_failed',
        `${label} did not start (${why})${this.stderrTail ? `: ${this.stderrTail.slice(-1500)}` : ''}`,
      )
    try {
      this.init = await Promise.race([
        this.conn.agent.request('initialize', {
          protocolVersion: this.sdk.PROTOCOL_VERSION,
          // Concord offers no file system or terminal of its own here: the agent uses its own tools, and its
          // permission requests for them come to Concord as approvals under the member's policy.
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'concord', version: '0.1.0' },
        }),
        this.exited.then((why) =>
          Promise.reject(why === 'ENOENT' ? new AgentStartError('agent_missing', 'ENOENT') : failed(why)),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(failed(`no answer to initialize within ${Math.round(timeoutMs / 1000)} s`)),
            timeoutMs,
          )
        }),
      ])
      return this.init
    } catch (err) {
      if (err instanceof AgentStartError) {
        this.kill()
        throw err
      }
      const why = await this.exitReason(2000)
      this.kill()
      if (why === 'ENOENT') throw new AgentStartError('agent_missing', 'ENOENT')
      throw failed(why ?? (err instanceof Error ? err.message : String(err)))
    } finally {
      clearTimeout(timer)
    }
  }

  attach(sessionId: string, handlers: SessionHandlers): () => void {
    this.sessions.set(sessionId, handlers)
    return () => {
      if (this.sessions.get(sessionId) === handlers) this.sessions.delete(sessionId)
    }
  }

  private signalGroup(sig: NodeJS.Signals): void {
    try {
      if (this.proc.pid) process.kill(-this.proc.pid, sig)
    } catch {
      this.proc.kill(sig)
    }
  }

  /**
   * Stops the agent the way it stops when its client goes away: its input ends and it exits by itself, having written
   * what it keeps of the session (Claude Code writes the cancelled prompt to its session file; a SIGTERM right after
   * a cancel could lose it, and the restarted agent's session/load then lacked that prompt). Killed after `graceMs`.
   */
  async retire(graceMs: number): Promise<void> {
    if (!this.dead) {
      this.proc.stdin?.end()
      if ((await this.exitReason(graceMs)) !== null) {
        // Its own children, if any were left in its group.
        this.signalGroup('SIGKILL')
        return
      }
    }
    this.kill()
    await this.exited
  }

  kill(): void {
    this.conn.close()
    // A dead agent may have left its own children in the group.
    if (this.dead) return this.signalGroup('SIGKILL')
    this.signalGroup('SIGTERM')
    const hard = setTimeout(() => this.signalGroup('SIGKILL'), 2000)
    hard.unref()
    void this.exited.then(() => clearTimeout(hard))
  }
}

/** The agents of all members, one each. */
export class AgentPool {
  private readonly agents = new Map<string, AgentProcess>()
  private readonly gateways = new Map<string, McpGateway>()
  private readonly turns = new Map<string, AgentTurnState>()
  /** The repository's MCP servers of each member's running turn, served through its gateway. */
  private readonly repoMcp = new Map<string, RepoMcpSession>()

  /**
   * The member's MCP gateway (kept while Concord runs, so the agent's configuration stays the same across turns);
   * `binding` makes the member's binding for each connection.
   */
  async gateway(memberId: string, binding: () => McpBinding): Promise<McpGateway> {
    let gateway = this.gateways.get(memberId)
    if (!gateway) {
      gateway = new McpGateway(binding, (server) => this.repoMcp.get(memberId)?.servers.get(server) ?? null)
      this.gateways.set(memberId, gateway)
    }
    try {
      await gateway.ready
    } catch (err) {
      this.gateways.delete(memberId)
      gateway.close()
      throw err
    }
    return gateway
  }

  /** The turn the member's agent is in, else the one it was last in (what its MCP calls act in). */
  turn(memberId: string): AgentTurnState | null {
    return this.turns.get(memberId) ?? null
  }

  setTurn(memberId: string, turn: AgentTurnState): void {
    this.turns.set(memberId, turn)
  }

  /** The repository's MCP servers of the member's turn while it runs; `session` stops them when it ends. */
  serveRepoMcp(memberId: string, session: RepoMcpSession): () => Promise<void> {
    this.repoMcp.set(memberId, session)
    return async () => {
      if (this.repoMcp.get(memberId) === session) this.repoMcp.delete(memberId)
      await session.close()
    }
  }

  /** The member's live agent when it was started with this configuration; otherwise a new one (the old one is stopped). */
  async ensure(memberId: string, spec: SpawnSpec, label: string, timeoutMs: number): Promise<AgentProcess> {
    const existing = this.agents.get(memberId)
    if (existing && !existing.dead && existing.spec.fingerprint === spec.fingerprint && existing.init) return existing
    existing?.kill()
    const agent = new AgentProcess(spec, await loadSdk())
    this.agents.set(memberId, agent)
    await agent.initialize(timeoutMs, label)
    return agent
  }

  /** Stops the member's agent; the next turn starts a new one. */
  stop(memberId: string): void {
    this.agents.get(memberId)?.kill()
    this.agents.delete(memberId)
  }

  get(memberId: string): AgentProcess | undefined {
    return this.agents.get(memberId)
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()]
    this.agents.clear()
    for (const a of all) a.kill()
    await Promise.all(all.map((a) => a.exited))
    await Promise.all([...this.repoMcp.values()].map((s) => s.close()))
    this.repoMcp.clear()
    for (const gateway of this.gateways.values()) gateway.close()
    this.gateways.clear()
    // The shared connections to SSH hosts its members ran on, and their containers (runner/remote-turn.ts).
    await stopSshMasters()
    await removeContainers()
  }
}
