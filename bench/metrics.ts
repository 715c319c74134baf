/**
 * metrics.get with 1,000,000 steps in the workspace (target ≤ 2 ms), beside the same call with no steps at
 * all, in one run: the figures are kept with every step write, so the two should be about equal.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms, verdict } from './util'

const STEPS = 1_000_000
const MEMBERS = 6
const RUNS = 21
const TARGET = 2

export async function metricsBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-metrics-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    for (const f of ['empty', 'busy']) mkdirSync(join(root, f))
    const empty = await core.invoke('workspaces.open', { repoPath: join(root, 'empty'), isolation: 'shared' })
    const ws = await core.invoke('workspaces.open', { repoPath: join(root, 'busy'), isolation: 'shared' })
    for (let m = 0; m < MEMBERS; m++) {
      await core.invoke('members.create', { workspaceId: ws.id, name: `M${m}`, role: 'implementer' })
      await core.invoke('members.create', { workspaceId: empty.id, name: `M${m}`, role: 'implementer' })
    }
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'T' })
    const taskRow = Number(task.id.split('-t')[1])
    const { db } = core.harness.ctx(ws.id).store
    // In bulk, in SQL: model replies with usage, tool steps without, some on a task. The store's triggers run per row.
    const t0 = performance.now()
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO steps (member_id, kind, status, text, task_id, input_tokens, output_tokens, started_at, ended_at)
       SELECT (i % ?) + 1, CASE WHEN i % 3 = 0 THEN 'tool' ELSE 'model' END, 'done', 'step ' || i,
              CASE WHEN i % 10 = 0 THEN ? END, CASE WHEN i % 3 = 0 THEN NULL ELSE 900 END, CASE WHEN i % 3 = 0 THEN NULL ELSE 60 END,
              '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
       FROM n`,
    ).run(STEPS, MEMBERS, taskRow)
    const seeded = (performance.now() - t0) / 1000
    const time = async (workspaceId: string) => {
      const xs: number[] = []
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now()
        await core.invoke('metrics.get', { workspaceId })
        xs.push(performance.now() - s)
      }
      return median(xs)
    }
    const none = await time(empty.id)
    const busy = await time(ws.id)
    const m = await core.invoke('metrics.get', { workspaceId: ws.id })
    console.log(
      `M   metrics.get with ${STEPS.toLocaleString()} steps (seeded in ${seeded.toFixed(1)} s; ${m.tokens.total.input.toLocaleString()} input tokens counted)`,
    )
    console.log(
      `    median ${ms(busy)} (target ≤ ${TARGET} ms: ${verdict(busy <= TARGET)}); with no steps ${ms(none)}; ratio ${(busy / none).toFixed(2)}x`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
