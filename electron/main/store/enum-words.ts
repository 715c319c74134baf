/**
 * The words the store accepts in its enumerated columns (migration 032's triggers read them): the lists in shared/,
 * written into `enum_words` when a database opens, and only when they differ from what it holds. The one declaration
 * of each list stays in shared/; adding a word there is all a new agent kind or step kind needs of the store.
 */
import { agentKinds } from '../../../shared/agent-kinds'
import { decisionStatuses, providerKinds, stepKinds, stepStatuses, verdicts } from '../../../shared/enums'
import { reportKinds } from '../../../shared/report-kinds'
import type Database from 'better-sqlite3'

/** enum_words's list name → the shared list. */
export const enumLists: Record<string, readonly string[]> = {
  agent_kind: agentKinds,
  provider_kind: providerKinds,
  decision_status: decisionStatuses,
  report_kind: reportKinds,
  verdict: verdicts,
  step_kind: stepKinds,
  step_status: stepStatuses,
}

const key = (rows: { list: string; word: string }[]): string =>
  rows
    .map((r) => `${r.list}\u0000${r.word}`)
    .sort()
    .join('\n')

/** Brings `enum_words` to the shared lists (a database older than migration 032 has none: nothing to do). */
export function fillEnumWords(db: Database.Database): void {
  const has = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'enum_words'").get()
  if (!has) return
  const want = Object.entries(enumLists).flatMap(([list, words]) => words.map((word) => ({ list, word })))
  const held = db.prepare('SELECT list, word FROM enum_words').all() as { list: string; word: string }[]
  if (key(held) === key(want)) return
  db.transaction(() => {
    db.prepare('DELETE FROM enum_words').run()
    const insert = db.prepare('INSERT INTO enum_words (list, word) VALUES (?, ?)')
    for (const r of want) insert.run(r.list, r.word)
  }).immediate()
}
