/** npm run bench: prints each benchmark's figures and its ratio to target. Not part of the tests. */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { metricsBench } from './metrics'
import { p1 } from './p1-edit'
import { p4 } from './p4-context'
import { p7 } from './p7-worktrees'

await p1()
await metricsBench()
await p4()
await p7()
// The Chromium benchmarks run in their own processes: a browser and a bridge must not share this one's heap and loop.
for (const file of ['ui.ts', 'ui-scale.ts']) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
}
