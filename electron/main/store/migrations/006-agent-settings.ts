/**
 * Schema v6 (agent settings): per-member settings of an external agent over ACP.
 * - agent_interrupt: 1 = when a task it works on is flagged needs_adjustment, Concord cancels the running turn and
 *   sends the notice at once ("interrupt and re-prompt"); 0 = the notice waits for its next tool call or turn end.
 * - agent_turn_timeout_s: Concord's own limit on one turn (some agents retry a dead model endpoint forever).
 */
export const up = `
ALTER TABLE members ADD COLUMN agent_interrupt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN agent_turn_timeout_s INTEGER NOT NULL DEFAULT 600;
`
