/**
 * Schema v4 (agents): a member can be an external coding agent driven over ACP instead of a model provider.
 * provider_kind keeps its CHECK (rebuilding the members table is not worth it); an agent member has
 * provider_kind NULL and `agent` set.
 * - agent, agent_command, agent_args (JSON array), agent_env (JSON object, plain values only: keys live in the
 *   secret store), agent_isolated_home (1: HOME and the agent's config folders are per member).
 * - acp_session: the agent's session id, for session/load after a restart where the agent supports it.
 */
export const up = `
ALTER TABLE members ADD COLUMN agent TEXT CHECK (agent IN ('claude-code','codex','gemini','custom'));
ALTER TABLE members ADD COLUMN agent_command TEXT;
ALTER TABLE members ADD COLUMN agent_args TEXT NOT NULL DEFAULT '[]';
ALTER TABLE members ADD COLUMN agent_env TEXT NOT NULL DEFAULT '{}';
ALTER TABLE members ADD COLUMN agent_isolated_home INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN acp_session TEXT;
`
