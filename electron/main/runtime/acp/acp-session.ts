/** An ACP turn's session: the live one, else the stored one where the agent can load it, else a new one. */
import type { AcpTurnEnv } from './turn-env'
import type { StartedAgent } from './agent-start'
import { agentPresets } from './presets'

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
      !agentPresets[member.agent!].replaysAfterLoad
    ) {
      // History replayed by session/load is not new work: nobody is attached to hear it.
      await agent.conn.agent.request('session/load', {
        sessionId: member.acp_session,
        cwd: env.workspaceRoot,
        mcpServers: sessionMcp,
        ...sessionMeta,
      })
      agent.sessionId = member.acp_session
      return { sessionId: member.acp_session, fresh: false }
    }
  } catch {
    // An unknown or unloadable session: start a new one below.
  }
  try {
    const s = await Promise.race([
      agent.conn.agent.request('session/new', { cwd: env.workspaceRoot, mcpServers: sessionMcp, ...sessionMeta }),
      agent.exited.then((why): never => {
        throw new Error(why)
      }),
    ])
    agent.sessionId = s.sessionId
    env.ctx.store.members.setAcpSession(member.id, s.sessionId)
    return { sessionId: s.sessionId, fresh: true }
  } catch (err) {
    agent.kill()
    return {
      error: `${agentPresets[member.agent!].label} could not open a session (${err instanceof Error ? err.message : String(err)})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}`,
    }
  }
}
