/**
 * S2: search.records while typing over 10,000 reports (3 claims each), 1,000 tasks and 100 decisions (5 revisions
 * each), written in bare SQL (the indexes' triggers run per row): keys, common words that match every report, a
 * short prefix that stands for thousands of terms, and a word nothing has. Target: every query ≤ 20 ms (median).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms, verdict, repoIn } from './util'

const REPORTS = Number(process.env.S2_REPORTS ?? 10_000)
const TASKS = 1_000
const DECISIONS = 100
const RUNS = 15
const TARGET = 20
const QUERIES = ['R-6', 'd-40', 'T-999', 'timeout', 'mod', 'module12', 'handles timeout ca', 'earlier wording', 'zzz']

export async function searchRecords(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-search-records-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repoIn(root), isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const { db } = core.harness.ctx(ws.id).store
    const at = '2026-01-01T00:00:00.000Z'
    const t0 = performance.now()
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO decisions (title, statement, rationale, status, version, fingerprint, created_at, updated_at)
         SELECT 'Decision ' || i || ' on module' || i, 'Module' || i || ' gives up after ' || i || ' s', '', 'accepted', 5, 'f', ?, ? FROM n`,
      ).run(DECISIONS, at, at)
      db.prepare(
        `WITH RECURSIVE v(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM v WHERE k < 5)
         INSERT INTO decision_revisions (decision_id, version, title, statement, rationale, status, content_hash, fingerprint, reason, created_at)
         SELECT d.id, v.k, d.title, 'Earlier wording ' || v.k || ' of module' || d.id, '', 'accepted', 'h' || v.k, 'f' || v.k, 'edit ' || v.k, ?
         FROM decisions d, v ORDER BY d.id, v.k`,
      ).run(at)
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO tasks (title, spec, acceptance_criteria, status, created_at, updated_at)
         SELECT 'Task ' || i || ': fetch module' || (i % 200), 'Call module' || (i % 300) || ' with a timeout', 'Tests pass', 'todo', ?, ? FROM n`,
      ).run(TASKS, at, at)
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO reports (task_id, author_id, kind, verdict, summary, artifact_commit, claim_count, created_at)
         SELECT 1 + (i % ?), 1, 'test', 'pass', 'Run ' || i || ': module' || (i % 5000) || ' passed', 'abcdef1', 3, ? FROM n`,
      ).run(REPORTS, TASKS, at)
      db.prepare(
        `WITH RECURSIVE o(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM o WHERE k < 2)
         INSERT INTO claims (report_id, ordinal, text)
         SELECT r.id, o.k, 'module' || ((r.id * 3 + o.k) % 20000) || ' handles timeout case ' || o.k FROM reports r, o ORDER BY r.id, o.k`,
      ).run()
    })()
    const seeded = (performance.now() - t0) / 1000
    console.log(
      `S2  search.records, ${REPORTS.toLocaleString()} reports x 3 claims, ${TASKS} tasks, ${DECISIONS} decisions x 5 revisions (seeded in ${seeded.toFixed(1)} s), median of ${RUNS}`,
    )
    let worst = 0
    const cells: string[] = []
    for (const query of QUERIES) {
      const xs: number[] = []
      let hits = 0
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now()
        hits = (await core.invoke('search.records', { workspaceId: ws.id, query, limit: 8 })).length
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

if (import.meta.url === `file://${process.argv[1]}`) await searchRecords()
