/**
 * A custom ACP agent's key variable (issue 35): members.agent_key_variable names the environment variable its key from
 * the secret store is set in (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), in the agent's process only. NULL: the preset's
 * own (Claude Code, Codex, Gemini CLI), or none for a custom agent (its key then reaches nothing, as before).
 */
export const up = `
ALTER TABLE members ADD COLUMN agent_key_variable TEXT;
`
