import type { AgentKind } from '../../../shared/agent-kinds'
import type { ProviderKindValue } from '../../../shared/enums'
import type { Runner } from '../../../shared/runners'
import type { Db } from './connection'

export interface MemberRow {
  id: number
  name: string
  role: string
  authority: 'observer' | 'proposer' | 'decider'
  instructions: string
  provider_kind: ProviderKindValue | null
  provider_model: string | null
  provider_base_url: string | null
  /** Set when the member is an external agent over ACP (then provider_kind is null). */
  agent: AgentKind | null
  agent_command: string | null
  /** JSON array of strings. */
  agent_args: string
  /** JSON object of plain variables. */
  agent_env: string
  /** The variable a custom agent's key is set in (migration 030); null: the preset's own. */
  agent_key_variable: string | null
  agent_isolated_home: number
  /** The agent's session id (session/load after a restart). */
  acp_session: string | null
  /** 1: a needs_adjustment flag interrupts the agent's turn and re-prompts it with the notice. */
  agent_interrupt: number
  /** Concord's limit on one agent turn, in seconds. */
  agent_turn_timeout_s: number
  approval: 'ask' | 'sandboxed' | 'auto'
  max_steps: number
  planning_interval: number
  /** 1: this member's commands may use the network. */
  network: number
  /** JSON list of the names of the repository's MCP servers (`.mcp.json`) this member does not get (migration 033). */
  mcp_off: string
  /** JSON of the runner it runs on (shared/runners.ts); null: the workspace's default runner (migration 036). */
  runner: string | null
  /** Steps up to this id belong to an earlier conversation (sessions.reset). */
  session_start: number
  /** Set while the member is archived: out of lists, kept in the store and the export. */
  archived_at: string | null
  /** The secret-store entry its key is read from when not its own (a member copied from another team; migration 022). */
  api_key_ref: string | null
  created_at: string
  updated_at: string
}

export type MemberFields = Omit<
  MemberRow,
  | 'id'
  | 'created_at'
  | 'session_start'
  | 'acp_session'
  | 'agent_interrupt'
  | 'agent_turn_timeout_s'
  | 'archived_at'
  | 'api_key_ref'
  | 'mcp_off'
  | 'runner'
>

/** The agent columns of a member that is no external agent: a model provider's, or none. */
export const NO_AGENT = {
  agent: null,
  agent_command: null,
  agent_args: '[]',
  agent_env: '{}',
  agent_key_variable: null,
  agent_isolated_home: 0,
} as const satisfies Partial<MemberRow>

export class MembersRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO members (name, role, authority, instructions, provider_kind, provider_model, provider_base_url, approval, max_steps, planning_interval, network, agent, agent_command, agent_args, agent_env, agent_key_variable, agent_isolated_home, created_at, updated_at)
         VALUES (@name, @role, @authority, @instructions, @provider_kind, @provider_model, @provider_base_url, @approval, @max_steps, @planning_interval, @network, @agent, @agent_command, @agent_args, @agent_env, @agent_key_variable, @agent_isolated_home, @updated_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE members SET name = @name, role = @role, authority = @authority, instructions = @instructions, provider_kind = @provider_kind,
         provider_model = @provider_model, provider_base_url = @provider_base_url, approval = @approval, max_steps = @max_steps, planning_interval = @planning_interval, network = @network,
         agent = @agent, agent_command = @agent_command, agent_args = @agent_args, agent_env = @agent_env, agent_key_variable = @agent_key_variable, agent_isolated_home = @agent_isolated_home, updated_at = @updated_at
         WHERE id = @id`,
      ),
      setSessionStart: db.prepare('UPDATE members SET session_start = ? WHERE id = ?'),
      setAcpSession: db.prepare('UPDATE members SET acp_session = ? WHERE id = ?'),
      setAgentSettings: db.prepare('UPDATE members SET agent_interrupt = ?, agent_turn_timeout_s = ? WHERE id = ?'),
      setKeyRef: db.prepare('UPDATE members SET api_key_ref = ? WHERE id = ?'),
      setMcpOff: db.prepare('UPDATE members SET mcp_off = ? WHERE id = ?'),
      setRunner: db.prepare('UPDATE members SET runner = ? WHERE id = ?'),
      get: db.prepare<[number], MemberRow>('SELECT * FROM members WHERE id = ?'),
      list: db.prepare<[], MemberRow>('SELECT * FROM members WHERE archived_at IS NULL ORDER BY id'),
      listAll: db.prepare<[], MemberRow>('SELECT * FROM members ORDER BY id'),
    }
  }

  setAgentSettings(id: number, interrupt: boolean, turnTimeoutSeconds: number): void {
    this.s.setAgentSettings.run(interrupt ? 1 : 0, turnTimeoutSeconds, id)
  }

  insert(fields: MemberFields): number {
    return Number(this.s.insert.run(fields).lastInsertRowid)
  }

  update(id: number, fields: MemberFields): void {
    this.s.update.run({ ...fields, id })
  }

  /** The repository's MCP servers the member does not get, by name. */
  setMcpOff(id: number, names: readonly string[]): void {
    this.s.setMcpOff.run(JSON.stringify(names), id)
  }

  /** Where the member runs; null: the workspace's default runner. */
  setRunner(id: number, runner: Runner | null): void {
    this.s.setRunner.run(runner === null ? null : JSON.stringify(runner), id)
  }

  /** Where the member's key is read from: another member's entry in the secret store, or null for its own. */
  setKeyRef(id: number, ref: string | null): void {
    this.s.setKeyRef.run(ref, id)
  }

  setSessionStart(id: number, stepId: number): void {
    this.s.setSessionStart.run(stepId, id)
  }

  setAcpSession(id: number, sessionId: string | null): void {
    this.s.setAcpSession.run(sessionId, id)
  }

  get(id: number): MemberRow | undefined {
    return this.s.get.get(id)
  }

  /** Members not archived; `includeArchived` for the export and the Archived view. */
  list(includeArchived = false): MemberRow[] {
    return (includeArchived ? this.s.listAll : this.s.list).all()
  }
}
