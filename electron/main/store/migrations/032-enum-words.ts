/**
 * The words of the shared lists leave the SQL (issue 34): the CHECKs that held the words of an agent kind, a provider
 * kind, a decision status, a report kind, a verdict and a step's kind and status are removed, and triggers check each
 * column against `enum_words` instead, which the connection fills from the lists in shared/ (store/enum-words.ts). A
 * new word is then one entry in its list and no migration; a word outside the lists is still refused by the store.
 *
 * A CHECK is removed by editing its table's definition in sqlite_schema, the procedure SQLite documents for removing
 * CHECK constraints (lang_altertable.html, "making other kinds of table schema changes"): no stored row changes, and
 * a rebuild would have to recreate these tables' twenty triggers and indexes. The runner allows the edit for this
 * migration only (`writesSchema`) and bumps the schema version after it. Each text below is the CHECK exactly as the
 * migration that wrote it (001, 002, 004, 025) had it stored.
 */

/** [table, column, list, the CHECK as stored]. */
const checks: [string, string, string, string][] = [
  ['members', 'agent', 'agent_kind', "CHECK (agent IN ('claude-code','codex','gemini','custom'))"],
  ['members', 'provider_kind', 'provider_kind', "CHECK (provider_kind IN ('openai','anthropic','openai-compatible'))"],
  ['decisions', 'status', 'decision_status', "CHECK (status IN ('proposed','accepted','rejected','superseded'))"],
  ['reports', 'kind', 'report_kind', "CHECK (kind IN ('implementation','test','review'))"],
  ['reports', 'verdict', 'verdict', "CHECK (verdict IN ('pass','fail','partial'))"],
  ['claims', 'verdict', 'verdict', "CHECK (verdict IN ('pass', 'fail', 'partial'))"],
  [
    'steps',
    'kind',
    'step_kind',
    "CHECK (kind IN ('user','message','model','tool','notice','error','interrupted','plan'))",
  ],
  [
    'steps',
    'status',
    'step_status',
    "CHECK (status IN ('queued','streaming','running','waiting_approval','done','denied','error','interrupted'))",
  ],
]

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`

const removeCheck = ([table, , , check]: (typeof checks)[number]): string =>
  `UPDATE sqlite_schema SET sql = replace(sql, ${quote(` ${check}`)}, '') WHERE type = 'table' AND name = ${quote(table)};`

function wordTriggers([table, column, list]: (typeof checks)[number]): string {
  const refused = `NEW.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM enum_words WHERE list = '${list}' AND word = NEW.${column})`
  const raise = `SELECT RAISE(ABORT, 'CHECK constraint failed: ${table}.${column} is not a word of its list, ${list}');`
  return `
CREATE TRIGGER ${table}_${column}_word BEFORE INSERT ON ${table} WHEN ${refused} BEGIN ${raise} END;
CREATE TRIGGER ${table}_${column}_word_update BEFORE UPDATE OF ${column} ON ${table} WHEN ${refused} BEGIN ${raise} END;`
}

export const writesSchema = true

export const up = `
PRAGMA writable_schema = ON;
${checks.map(removeCheck).join('\n')}
PRAGMA writable_schema = OFF;

CREATE TABLE enum_words (
  list TEXT NOT NULL,
  word TEXT NOT NULL,
  PRIMARY KEY (list, word)
) STRICT, WITHOUT ROWID;
${checks.map(wordTriggers).join('\n')}
`
