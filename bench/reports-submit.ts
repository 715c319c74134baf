/**
 * R2: reports.submit per call on a git workspace, the way a tester files one: a delivered task whose tree is still
 * there (the handler brings the tree's head into the repository first) and an artifact named as a person names it —
 * a short SHA, the task's branch, the full SHA — resolved to the full commit. Beside it, the same call with only a
 * digest (no commit to resolve: the store's share and the tree's head). Target: ≤ 5 ms per call (median of each kind).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms, verdict } from './util'

const CALLS = Number(process.env.R2_CALLS ?? 40)
const TARGET = 5

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim()

export async function reportsSubmit(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-submit-'))
  const repo = join(root, 'repo')
  mkdirSync(repo)
  git(repo, 'init', '-q', '-b', 'main')
  git(repo, 'config', 'user.name', 'Bench')
  git(repo, 'config', 'user.email', 'bench@concord.invalid')
  writeFileSync(join(repo, 'app.ts'), 'export const answer = 42\n')
  git(repo, 'add', '-A')
  git(repo, 'commit', '-qm', 'base')
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repo })
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Feature', requiredReports: [] })
    const started = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(root, 'data', 'worktrees', ws.id, started.key)
    writeFileSync(join(tree, 'app.ts'), 'export const answer = 43\n')
    git(tree, '-c', 'user.name=B', '-c', 'user.email=b@x', 'commit', '-qam', 'feature')
    const delivered = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    const head = delivered.artifact!.commit!
    const kinds: [string, { commit?: string; digest?: string }][] = [
      ['digest only', { digest: 'sha256:bench' }],
      ['short SHA', { commit: head.slice(0, 7) }],
      ['branch', { commit: started.branch! }],
      ['full SHA', { commit: head }],
    ]
    const submit = (artifact: { commit?: string; digest?: string }) =>
      core.invoke('reports.submit', { taskId: task.id, kind: 'test', verdict: 'pass', artifact, claims: [] })
    // Warm: the first call of each kind starts what later calls reuse.
    for (const [, artifact] of kinds) await submit(artifact)
    const cells: string[] = []
    let worst = 0
    for (const [name, artifact] of kinds) {
      const xs: number[] = []
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now()
        const r = await submit(artifact)
        xs.push(performance.now() - t0)
        if (artifact.commit && r.artifact.commit !== head) throw new Error(`${name} resolved to ${r.artifact.commit}`)
      }
      const m = median(xs)
      if (artifact.commit) worst = Math.max(worst, m)
      cells.push(`${name} ${ms(m)} (p90 ${ms(xs.sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] ?? NaN)})`)
    }
    console.log(`R2  reports.submit per call, a delivered task with its tree, median of ${CALLS} per kind`)
    console.log(`    ${cells.join(', ')}`)
    console.log(`    slowest with an artifact ${ms(worst)} (target ≤ ${TARGET} ms: ${verdict(worst <= TARGET)})`)
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
