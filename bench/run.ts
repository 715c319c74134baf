/**
 * npm run bench: prints each benchmark's figures and its ratio to target. Not part of the tests.
 * `npx tsx bench/run.ts --only p1,reports` runs the named benchmarks alone (names below).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { autoTurnsHttp } from './auto-turns-http'
import { baseMoves } from './base-moves'
import { coordinationTokens } from './coordination-tokens'
import { exportStream } from './export-stream'
import { importWait } from './import-wait'
import { interruptBuiltin } from './interrupt-builtin'
import { metricsBench } from './metrics'
import { p1 } from './p1-edit'
import { p4 } from './p4-context'
import { p7 } from './p7-worktrees'
import { reportsPage } from './reports-page'
import { reportsSubmit } from './reports-submit'
import { runnerSsh } from './runner-ssh'
import { searchPrefix } from './search-prefix'
import { searchRecords } from './search-records'
import { tasksPage } from './tasks-page'

const onlyAt = process.argv.indexOf('--only')
const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : null
const wanted = (name: string) => !only || only.has(name)

if (wanted('p1')) await p1()
if (wanted('metrics')) await metricsBench()
if (wanted('p4')) await p4()
if (wanted('p7')) await p7()
if (wanted('auto-turns')) await autoTurnsHttp()
if (wanted('reports')) await reportsPage()
if (wanted('reports.submit')) await reportsSubmit()
if (wanted('search')) await searchPrefix()
if (wanted('search.records')) await searchRecords()
if (wanted('tasks')) await tasksPage()
if (wanted('import-wait')) await importWait()
if (wanted('interrupt')) await interruptBuiltin()
if (wanted('tokens')) await coordinationTokens()
if (wanted('base-moves')) await baseMoves()
if (wanted('export-stream')) await exportStream()
if (wanted('runner')) await runnerSsh()
// The Chromium benchmarks run in their own processes: a browser and a bridge must not share this one's heap and loop.
for (const [name, file] of [
  ['ui', 'ui.ts'],
  ['ui-scale', 'ui-scale.ts'],
  ['p5', 'p5-start.ts'],
] as const) {
  if (!wanted(name)) continue
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
}
