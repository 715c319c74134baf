/** Schema v2: member sessions stored as structured steps (the inbox is the queued user/message steps). */
export const up = `
ALTER TABLE members ADD COLUMN planning_interval INTEGER NOT NULL DEFAULT 0;

CREATE TABLE steps (
  id INTEGER PRIMARY KEY,
  member_id INTEGER NOT NULL REFERENCES members(id),
  turn_id INTEGER,
  kind TEXT NOT NULL CHECK (kind IN ('user','message','model','tool','notice','error','interrupted','plan')),
  status TEXT NOT NULL CHECK (status IN ('queued','streaming','running','waiting_approval','done','denied','error','interrupted')),
  text TEXT NOT NULL DEFAULT '',
  tool_calls TEXT NOT NULL DEFAULT '[]',
  tool_call_id TEXT,
  tool_name TEXT,
  tool_args TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  from_member_id INTEGER REFERENCES members(id),
  task_id INTEGER REFERENCES tasks(id),
  input_tokens INTEGER,
  output_tokens INTEGER,
  started_at TEXT NOT NULL,
  ended_at TEXT
) STRICT;
CREATE INDEX steps_by_member ON steps(member_id, id);
CREATE INDEX steps_queued ON steps(member_id, status) WHERE status = 'queued';
CREATE INDEX steps_open ON steps(status) WHERE status IN ('streaming','running','waiting_approval');
`
