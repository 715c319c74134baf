/**
 * Money (issue 35): what each step cost, summed per member, task and model by triggers like migration 008's tokens.
 * - steps.model: the model a built-in member's step called (its price is looked up when the figures are read, so
 *   editing the price table re-prices the history; null for agents, whose model Concord does not know).
 * - steps.cost_micros, steps.cost_currency: a cost the agent reported (ACP usage_update), in millionths of the
 *   currency. A reported cost wins over the price table for its step: such a step's tokens are not priced again.
 * - members.acp_cost_session, members.acp_cost_micros: the last cumulative cost the agent reported for its session
 *   (ACP reports a session's total), so a turn's cost is the difference.
 * - model_usage: tokens of steps with no reported cost, per member, task (0: none) and model ('' unknown).
 * - reported_costs: reported costs per member, task and currency.
 */
const priced = (row: 'NEW' | 'OLD') => `${row}.input_tokens IS NOT NULL AND ${row}.cost_micros IS NULL`

function contribution(row: 'NEW' | 'OLD', sign: 1 | -1): string {
  return `
  INSERT INTO model_usage (member_id, task_id, model, input, output, steps)
    SELECT ${row}.member_id, coalesce(${row}.task_id, 0), coalesce(${row}.model, ''), ${sign} * ${row}.input_tokens,
      ${sign} * coalesce(${row}.output_tokens, 0), ${sign} WHERE ${priced(row)}
    ON CONFLICT (member_id, task_id, model) DO UPDATE SET input = input + excluded.input,
      output = output + excluded.output, steps = steps + excluded.steps;
  INSERT INTO reported_costs (member_id, task_id, currency, micros, steps)
    SELECT ${row}.member_id, coalesce(${row}.task_id, 0), coalesce(${row}.cost_currency, 'USD'), ${sign} * ${row}.cost_micros, ${sign}
    WHERE ${row}.cost_micros IS NOT NULL
    ON CONFLICT (member_id, task_id, currency) DO UPDATE SET micros = micros + excluded.micros, steps = steps + excluded.steps;`
}

export const up = `
ALTER TABLE steps ADD COLUMN model TEXT;
ALTER TABLE steps ADD COLUMN cost_micros INTEGER;
ALTER TABLE steps ADD COLUMN cost_currency TEXT;
ALTER TABLE members ADD COLUMN acp_cost_session TEXT;
ALTER TABLE members ADD COLUMN acp_cost_micros INTEGER;

CREATE TABLE model_usage (
  member_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  model TEXT NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  PRIMARY KEY (member_id, task_id, model)
) STRICT, WITHOUT ROWID;

CREATE TABLE reported_costs (
  member_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  currency TEXT NOT NULL,
  micros INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  PRIMARY KEY (member_id, task_id, currency)
) STRICT, WITHOUT ROWID;

-- Steps written before this version: a built-in member's are taken to have called its model of now (the best
-- record there is); an agent's have no model and stay unpriced ("not reported"), never $0.
UPDATE steps SET model = (SELECT m.provider_model FROM members m WHERE m.id = steps.member_id AND m.agent IS NULL)
  WHERE input_tokens IS NOT NULL;
INSERT INTO model_usage SELECT member_id, coalesce(task_id, 0), coalesce(model, ''), sum(input_tokens), coalesce(sum(output_tokens), 0), count(*)
  FROM steps WHERE input_tokens IS NOT NULL GROUP BY member_id, coalesce(task_id, 0), coalesce(model, '');

CREATE TRIGGER steps_cost_insert AFTER INSERT ON steps BEGIN${contribution('NEW', 1)}
END;
CREATE TRIGGER steps_cost_update AFTER UPDATE OF member_id, task_id, input_tokens, output_tokens, model, cost_micros, cost_currency ON steps BEGIN${contribution('OLD', -1)}${contribution('NEW', 1)}
END;
CREATE TRIGGER steps_cost_delete AFTER DELETE ON steps BEGIN${contribution('OLD', -1)}
END;
`
