/**
 * Schema v3: what the runtime needs to keep writes guarded and commands accountable.
 * - members.network: commands of this member may use the network (off by default).
 * - members.session_start: steps up to this id belong to an earlier conversation (sessions.reset);
 *   they stay in the store and the export, out of the view.
 * - steps.approval: the policy a queued message carries from the turn that sent it, so an `ask` member
 *   cannot run tools through an `auto` member unseen (the stricter of the two applies).
 * - command_processes: the process group of every command while it runs, so that after a crash the
 *   leftovers are killed before their steps are marked interrupted.
 */
export const up = `
ALTER TABLE members ADD COLUMN network INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN session_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN approval TEXT CHECK (approval IN ('ask','auto'));

CREATE TABLE command_processes (
  id INTEGER PRIMARY KEY,
  step_id INTEGER REFERENCES steps(id),
  pid INTEGER NOT NULL,
  pgid INTEGER NOT NULL,
  start_time TEXT,
  started_at TEXT NOT NULL
) STRICT;
`
