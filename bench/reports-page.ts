/**
 * R1: reports.page as the Reports panel asks for it (first page, totals, stale total; and the stale tab) at
 * 1,000,000 reports beside 10,000, in one run. The reports are written in bare SQL (the store's triggers run per
 * row), pinned to a decision in four contents so that an edit leaves most of them stale. Target: 1M ÷ 10k ≤ 1.5×.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core } from '../electron/main/core'
import { median, ms, verdict } from './util'
import { at } from '../eval/at'

const SIZES = [10_000, Number(process.env.R1_LARGE ?? 1_000_000)]
const RUNS = 31
const TARGET = 1.5

async function seeded(core: Core, dir: string, reports: number) {
  mkdirSync(dir)
  const ws = await core.invoke('workspaces.open', { repoPath: dir, isolation: 'shared' })
  const members = [
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' }),
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Rev', role: 'reviewer' }),
  ]
  let d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'S0' })
  const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'T', decisionIds: [d.id] })
  const { db } = core.harness.ctx(ws.id).store
  const t0 = performance.now()
  // A quarter of the reports on each of four contents of the decision; the last content stays current.
  for (let c = 0; c < 4; c++) {
    const n = reports / 4
    const first = (db.prepare('SELECT coalesce(max(id), 0) FROM reports').pluck().get() as number) + 1
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO reports (task_id, author_id, kind, verdict, summary, claim_count, created_at)
         SELECT ?, CASE WHEN i % 2 THEN ? ELSE ? END, CASE WHEN i % 2 THEN 'test' ELSE 'review' END, 'pass', '', 0, '2026-01-01T00:00:00.000Z' FROM n`,
      ).run(
        n,
        Number(task.id.split('-t')[1]),
        Number(at(members, 0).id.split('-m')[1]),
        Number(at(members, 1).id.split('-m')[1]),
      )
      db.prepare(
        `INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count)
         SELECT ?, id, ?, ?, task_id, author_id, claim_count FROM reports WHERE id >= ?`,
      ).run(Number(d.id.split('-d')[1]), d.version, d.fingerprint, first)
    })()
    if (c < 3)
      d = (
        await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement: `S${c + 1}` })
      ).decision
  }
  return { ws, seconds: (performance.now() - t0) / 1000 }
}

export async function reportsPage(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-reports-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const rows: { reports: number; all: number; stale: number; staleTotal: number; seconds: number }[] = []
    for (const reports of SIZES) {
      const { ws, seconds } = await seeded(core, join(root, `r${reports}`), reports)
      const time = async (params: Record<string, unknown>) => {
        const xs: number[] = []
        let staleTotal = 0
        for (let i = 0; i < RUNS; i++) {
          const t0 = performance.now()
          const page = await core.invoke('reports.page', { workspaceId: ws.id, limit: 50, ...params })
          xs.push(performance.now() - t0)
          staleTotal = page.staleTotal
        }
        return { t: median(xs.slice(5)), staleTotal }
      }
      const all = await time({})
      const stale = await time({ stale: true })
      rows.push({ reports, all: all.t, stale: stale.t, staleTotal: all.staleTotal, seconds })
    }
    const [small, large] = rows
    if (!small || !large) throw new Error('reports-page: expected a small and a large run')
    console.log(`R1  reports.page (first page of 50, totals, stale total), median of ${RUNS - 5}`)
    for (const r of rows)
      console.log(
        `    ${r.reports.toLocaleString()} reports (${r.staleTotal.toLocaleString()} stale; seeded in ${r.seconds.toFixed(1)} s): all ${ms(r.all)}, stale tab ${ms(r.stale)}`,
      )
    const ratio = large.all / small.all
    const staleRatio = large.stale / small.stale
    console.log(
      `    ${large.reports.toLocaleString()} ÷ ${small.reports.toLocaleString()}: ${ratio.toFixed(2)}x (target ≤ ${TARGET}x: ${verdict(ratio <= TARGET)}); stale tab ${staleRatio.toFixed(2)}x (target ≤ ${TARGET}x: ${verdict(staleRatio <= TARGET)})`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
