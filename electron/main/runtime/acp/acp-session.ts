/** An ACP turn's session: the live one, else the stored one where the agent can load it, else a new one. */
import type { AcpTurnEnv } from './turn-env'
import type { StartedAgent } from './agent-start'
import { agentPresets } from './presets'
import type { AgentProcess } from './agent-process'

type ModeState = { currentModeId?: unknown; availableModes?: { id?: unknown }[] } | null | undefined

/** The modes a session/new or session/load answer reports (ACP session modes). */
function modesOf(answer: unknown): AgentProcess['modes'] {
  const modes = (answer as { modes?: ModeState } | null)?.modes
  if (!modes || typeof modes.currentModeId !== 'string' || !Array.isArray(modes.availableModes)) return null
  const available = modes.availableModes.map((m) => m.id).filter((id): id is string => typeof id === 'string')
  return { current: modes.currentModeId, available }
}

/**
 * A plan-first turn puts the agent in its plan mode where it offers one ("plan", Claude Code's), and a later turn
 * takes it out again (its "default" mode). The tree is read-only either way: the mode only tells the agent why.
 */
export async function planMode(env: AcpTurnEnv, agent: AgentProcess, sessionId: string): Promise<void> {
  const modes = agent.modes
  if (!modes) return
  const want = env.planning ? 'plan' : modes.current === 'plan' ? 'default' : null
  if (!want || want === modes.current || !modes.available.includes(want)) return
  try {
    await agent.conn.agent.request('session/set_mode', { sessionId, modeId: want })
    modes.current = want
  } catch {
    // An agent that refuses the switch plans in the read-only tree all the same.
  }
}

/** The session the turn prompts (`fresh`: opened now, so the prompt introduces Concord); or why none opened. */
export async function openSession(
  env: AcpTurnEnv,
  { agent, sessionMcp, sessionMeta }: StartedAgent,
): Promise<{ sessionId: string; fresh: boolean } | { error: string }> {
  const member = env.member
  if (agent.sessionId) return { sessionId: agent.sessionId, fresh: false }
  try {
    if (
      member.acp_session &&
      agent.init?.agentCapabilities?.loadSession &&
      !agentPresets[member.agent!].replaysAfterLoad &&
      !agentPresets[member.agent!].sessionKeepsFolder
    ) {
      // History replayed by session/load is not new work: nobody is attached to hear it.
      const loaded = await agent.conn.agent.request('session/load', {
        sessionId: member.acp_session,
        cwd: env.remote?.place.root ?? env.workspaceRoot,
        mcpServers: sessionMcp,
        ...sessionMeta,
      })
      agent.sessionId = member.acp_session
      agent.modes = modesOf(loaded)
      return { sessionId: member.acp_session, fresh: false }
    }
  } catch {
    // An unknown or unloadable session: start a new one below.
  }
  try {
    const s = await Promise.race([
      agent.conn.agent.request('session/new', {
        cwd: env.remote?.place.root ?? env.workspaceRoot,
        mcpServers: sessionMcp,
        ...sessionMeta,
      }),
      agent.exited.then((why): never => {
        throw new Error(why)
      }),
    ])
    agent.sessionId = s.sessionId
    agent.modes = modesOf(s)
    env.ctx.store.members.setAcpSession(member.id, s.sessionId)
    return { sessionId: s.sessionId, fresh: true }
  } catch (err) {
    agent.kill()
    return {
      error: `${agentPresets[member.agent!].label} could not open a session (${err instanceof Error ? err.message : String(err)})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}`,
    }
  }
}
