/**
 * The lists in shared/ are the words the store accepts. Before migration 032 the tables' CHECKs named the words
 * themselves and this test held the two in step; since 032 the columns are checked against `enum_words`, which is
 * filled from the lists: this test holds the words and each column's triggers to the lists
 * (migration-enum-words.test.ts shows the triggers refusing and accepting).
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

describe('the shared lists and the store', () => {
  it('name the words the tables accept', () => {
    const db = openDatabase(join(dir, 'concord.db'))
    const pairs: [string, string, string, readonly string[]][] = [
      ['members', 'agent', 'agent_kind', agentKinds],
      ['members', 'provider_kind', 'provider_kind', providerKinds],
      ['decisions', 'status', 'decision_status', decisionStatuses],
      ['reports', 'verdict', 'verdict', verdicts],
      ['reports', 'kind', 'report_kind', reportKinds],
      ['claims', 'verdict', 'verdict', verdicts],
      ['steps', 'kind', 'step_kind', stepKinds],
      ['steps', 'status', 'step_status', stepStatuses],
    ]
    const words = db.prepare('SELECT word FROM enum_words WHERE list = ?').pluck()
    const triggers = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?").pluck()
    for (const [table, column, list, shared] of pairs) {
      expect([list, [...(words.all(list) as string[])].sort()]).toEqual([list, [...shared].sort()])
      const guards = (triggers.all(table) as string[]).filter((sql) =>
        sql.includes(`list = '${list}' AND word = NEW.${column})`),
      )
      expect([table, column, guards.map((sql) => /BEFORE (INSERT|UPDATE OF \w+) ON/.exec(sql)?.[0])]).toEqual([
        table,
        column,
        ['BEFORE INSERT ON', `BEFORE UPDATE OF ${column} ON`],
      ])
    }
    db.close()
  })
})
