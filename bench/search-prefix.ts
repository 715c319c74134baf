/**
 * S1: sessions.search while typing (the last word matches as a prefix) over 1,000,000 steps, written in bare SQL
 * (the search index's triggers run per row). The words: a common vocabulary, plus module names with thousands of
 * distinct endings, so that a short prefix stands for thousands of terms. Target: every query ≤ 20 ms (median).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms, verdict, repoIn } from './util'

const STEPS = Number(process.env.S1_STEPS ?? 1_000_000)
const RUNS = 15
const TARGET = 20
const QUERIES = ['m', 'mo', 'mod', 'modu', 'module', 'module12', 'the tests fo', 'fixed bu', 'zzz']

export async function searchPrefix(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-search-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repoIn(root), isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
    const { db } = core.harness.ctx(ws.id).store
    const t0 = performance.now()
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO steps (member_id, kind, status, text, started_at, ended_at)
       SELECT 1, CASE WHEN i % 4 = 0 THEN 'user' ELSE 'model' END, 'done',
         'Step ' || i || ': ran the tests for module' || (i % 20000) || ' and fixed ' || CASE i % 5 WHEN 0 THEN 'bug' WHEN 1 THEN 'build' WHEN 2 THEN 'test' WHEN 3 THEN 'docs' ELSE 'types' END || ' in file' || (i % 3000) || '.ts',
         '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
       FROM n`,
    ).run(STEPS)
    const seeded = (performance.now() - t0) / 1000
    console.log(
      `S1  sessions.search, last word as a prefix, ${STEPS.toLocaleString()} steps (seeded in ${seeded.toFixed(1)} s), median of ${RUNS}`,
    )
    let worst = 0
    const cells: string[] = []
    for (const query of QUERIES) {
      const xs: number[] = []
      let hits = 0
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now()
        hits = (await core.invoke('sessions.search', { workspaceId: ws.id, query })).length
        xs.push(performance.now() - s)
      }
      const m = median(xs)
      worst = Math.max(worst, m)
      cells.push(`"${query}" ${ms(m)} (${hits})`)
    }
    console.log(`    ${cells.join(', ')}`)
    console.log(`    slowest ${ms(worst)} (target ≤ ${TARGET} ms: ${verdict(worst <= TARGET)})`)
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
