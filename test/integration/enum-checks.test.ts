/**
 * The lists in shared/ and the CHECKs the old migrations wrote (history, never edited) say the same words: a word
 * added to a list without a migration that widens its CHECK would be refused by the store, so this fails first.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { agentKinds } from '../../shared/agent-kinds'
import { decisionStatuses, providerKinds, stepKinds, stepStatuses, verdicts } from '../../shared/enums'
import { reportKinds } from '../../shared/report-kinds'
import { openDatabase } from '../../electron/main/store/connection'

const dir = mkdtempSync(join(tmpdir(), 'concord-enums-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The words of `column IN (...)` in the table's CHECK, as SQLite keeps its definition. */
function checkWords(db: ReturnType<typeof openDatabase>, table: string, column: string): string[] {
  const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE type = ? AND name = ?').get('table', table) as {
    sql: string
  }
  const m = new RegExp(`CHECK \\(${column} IN \\(([^)]*)\\)\\)`).exec(sql)
  if (!m) throw new Error(`no CHECK on ${table}.${column}`)
  return m[1]!.split(',').map((w) => w.trim().replace(/^'|'$/g, ''))
}

describe('the shared lists and the store', () => {
  it('name the words the tables accept', () => {
    const db = openDatabase(join(dir, 'concord.db'))
    const pairs: [string, string, readonly string[]][] = [
      ['members', 'agent', agentKinds],
      ['members', 'provider_kind', providerKinds],
      ['decisions', 'status', decisionStatuses],
      ['reports', 'verdict', verdicts],
      ['reports', 'kind', reportKinds],
      ['claims', 'verdict', verdicts],
      ['steps', 'kind', stepKinds],
      ['steps', 'status', stepStatuses],
    ]
    for (const [table, column, list] of pairs)
      expect([table, column, checkWords(db, table, column)]).toEqual([table, column, [...list]])
    db.close()
  })
})
