/** npm run bench: prints each benchmark's figures and its ratio to target. Not part of the tests. */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { p1 } from './p1-edit'
import { p4 } from './p4-context'
import { p7 } from './p7-worktrees'

await p1()
await p4()
await p7()
const ui = join(import.meta.dirname, 'ui.ts')
if (existsSync(ui)) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ui], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
}
