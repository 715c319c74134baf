/**
 * Migration 034 (money) on a database that already has steps: a built-in member's tokens are taken to have called its
 * model of now (priced), an agent's stay unpriced; the triggers keep the sums with later writes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'concord-mig-money-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

it('brings a database with steps up to date (034): their tokens summed per member, task and model', () => {
  const at = migrations.findIndex((m) => m.name === '034-money')
  const file = join(dir, 'before-034.sqlite')
  const old = openDatabase(file, { migrations: migrations.slice(0, at) })
  const member = (name: string, model: string | null, agent: string | null) =>
    old
      .prepare(
        "INSERT INTO members (name, role, authority, provider_kind, provider_model, agent, created_at, updated_at) VALUES (?, 'impl', 'decider', 'openai', ?, ?, 'x', 'x')",
      )
      .run(name, model, agent).lastInsertRowid
  const ann = member('Ann', 'gpt-4o', null)
  const bot = member('Bot', null, 'custom')
  const step = old.prepare(
    "INSERT INTO steps (member_id, kind, status, input_tokens, output_tokens, started_at) VALUES (?, 'model', 'done', ?, ?, 'x')",
  )
  step.run(ann, 100, 10)
  step.run(ann, 50, 5)
  step.run(bot, 7, 3)
  step.run(bot, null, null)
  old.close()

  const db = openDatabase(file, { migrations: migrations.slice(0, at + 1) })
  const rows = () =>
    db.prepare('SELECT member_id, task_id, model, input, output, steps FROM model_usage ORDER BY member_id').all()
  expect(rows()).toEqual([
    { member_id: ann, task_id: 0, model: 'gpt-4o', input: 150, output: 15, steps: 2 },
    { member_id: bot, task_id: 0, model: '', input: 7, output: 3, steps: 1 },
  ])
  // A cost reported on a step takes its tokens out of the priced sums, into the reported ones.
  db.prepare("UPDATE steps SET cost_micros = 40, cost_currency = 'USD' WHERE member_id = ? AND input_tokens = 7").run(
    bot,
  )
  expect(rows()).toEqual([
    { member_id: ann, task_id: 0, model: 'gpt-4o', input: 150, output: 15, steps: 2 },
    { member_id: bot, task_id: 0, model: '', input: 0, output: 0, steps: 0 },
  ])
  expect(db.prepare('SELECT member_id, currency, micros, steps FROM reported_costs').all()).toEqual([
    { member_id: bot, currency: 'USD', micros: 40, steps: 1 },
  ])
  db.close()
})
