/**
 * Migration 032 (issue 34): the enumerated columns stop naming their words in CHECKs and read the lists in shared/
 * (enum_words, filled at open). An older file keeps every row and value; a word outside its list is still refused;
 * a word added to a list is accepted with no migration — adding an agent kind is one entry.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { agentKinds } from '../../shared/agent-kinds'
import { openDatabase } from '../../electron/main/store/connection'
import { enumLists } from '../../electron/main/store/enum-words'
import { olderFile } from '../fixtures/store'

const dir = mkdtempSync(join(tmpdir(), 'concord-enum-words-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const file = (): string => join(dir, `w${++n}.sqlite`)

/** [table, column, the row's id] for each enumerated column; the rows are made by `populated`. */
const columns: [string, string, number][] = [
  ['members', 'agent', 1],
  ['members', 'provider_kind', 2],
  ['decisions', 'status', 1],
  ['reports', 'kind', 1],
  ['reports', 'verdict', 1],
  ['claims', 'verdict', 1],
  ['steps', 'kind', 1],
  ['steps', 'status', 1],
]

/** A workspace file as Concord before 032 left it, with a row in every table that has an enumerated column. */
function populated(f: string) {
  const { db, at } = olderFile(f, 31, [[1, 'fp']])
  db.prepare("UPDATE members SET agent = 'codex' WHERE id = 1").run()
  db.prepare(
    "INSERT INTO members (id, name, role, authority, provider_kind, created_at, updated_at) VALUES (2, 'B', 'r', 'proposer', 'anthropic', ?, ?)",
  ).run(at, at)
  db.prepare(
    "INSERT INTO reports (id, task_id, kind, verdict, claim_count, created_at) VALUES (1, 1, 'review', 'partial', 1, ?)",
  ).run(at)
  db.prepare("INSERT INTO claims (id, report_id, ordinal, text, verdict) VALUES (1, 1, 0, 'ok', 'fail')").run()
  db.prepare("INSERT INTO steps (id, member_id, kind, status, started_at) VALUES (1, 1, 'tool', 'denied', ?)").run(at)
  const rows = Object.fromEntries(
    ['members', 'decisions', 'reports', 'claims', 'steps'].map((t) => [t, db.prepare(`SELECT * FROM ${t}`).all()]),
  )
  db.close()
  return rows
}

describe('migration 032: the lists in shared/ are the words the store accepts', () => {
  afterEach(() => {
    enumLists.agent_kind = agentKinds
  })

  it('brings an older file up with every row and value kept and no word list left in its tables', () => {
    const f = file()
    const before = populated(f)
    const db = openDatabase(f)
    // Later migrations may add columns: the columns the rows had keep their values.
    for (const [table, rows] of Object.entries(before)) {
      const now = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]
      const kept = now.map((r, i) => Object.fromEntries(Object.keys(rows[i] ?? {}).map((k) => [k, r[k]])))
      expect(kept).toEqual(rows)
    }
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(db.pragma('foreign_key_check')).toEqual([])
    for (const [table, column] of columns) {
      const sql = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table)
      expect([table, column, sql]).not.toEqual([table, column, expect.stringContaining(`(${column} IN (`)])
    }
    db.close()
  })

  it('refuses a word outside its list in every enumerated column, on update and on insert', () => {
    const f = file()
    populated(f)
    const db = openDatabase(f)
    for (const [table, column, id] of columns) {
      expect(
        () => db.prepare(`UPDATE ${table} SET ${column} = 'nonsense' WHERE id = ?`).run(id),
        `${table}.${column}`,
      ).toThrow(`CHECK constraint failed: ${table}.${column}`)
    }
    const at = new Date().toISOString()
    expect(() =>
      db.prepare("INSERT INTO steps (member_id, kind, status, started_at) VALUES (1, 'user', 'thinking', ?)").run(at),
    ).toThrow('CHECK constraint failed: steps.status')
    // Every word of every list is accepted (the lists and the store say the same words).
    for (const [table, column, id] of columns) {
      for (const w of wordsOf(table, column)) db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`).run(w, id)
    }
    db.close()
  })

  it('accepts a word added to a list with no migration: a new agent kind is one entry', () => {
    const f = file()
    populated(f)
    enumLists.agent_kind = [...agentKinds, 'goose']
    const db = openDatabase(f)
    db.prepare("UPDATE members SET agent = 'goose' WHERE id = 1").run()
    expect(db.prepare('SELECT agent FROM members WHERE id = 1').pluck().get()).toBe('goose')
    db.close()
  })
})

/** The shared list a column's words come from. */
function wordsOf(table: string, column: string): readonly string[] {
  if (column === 'agent') return enumLists.agent_kind!
  if (column === 'provider_kind') return enumLists.provider_kind!
  if (column === 'verdict') return enumLists.verdict!
  if (table === 'decisions') return enumLists.decision_status!
  if (table === 'reports') return enumLists.report_kind!
  return column === 'kind' ? enumLists.step_kind! : enumLists.step_status!
}
