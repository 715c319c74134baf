/**
 * T1: tasks.page as the board reads it, 100 tasks a page, over 1,000 tasks, in two workspaces:
 * - mixed: statuses in turn to do, in progress, delivered, accepted (as P1 seeds them);
 * - delivered: every task delivered, the board's worst case for readiness.
 * Each delivered task needs a test and a review report and has both (2 claims each, pinned to its decision; half of
 * them on another commit than the delivered one, so acceptance has reasons); each task in progress has its assignee's
 * passing implementation report on a commit (a delivery to offer).
 *
 * Prints the median time of one page (walking all ten; wall and CPU), and, where the API still has tasks.readiness (before the Task
 * carried its readiness), the page plus one tasks.readiness per delivered or in-progress card on it: what the board
 * asked for a page then. Run alone: npx tsx bench/run.ts --only tasks.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core } from '../electron/main/core'
import type { Task } from '../shared/schemas'
import { median, ms } from './util'

const TASKS = 1_000
const PAGE = 100
const RUNS = 21

type Ctx = ReturnType<Core['harness']['ctx']>
const rowOf = (id: string, kind: string) => Number(id.split(`-${kind}`)[1])
const SHA = 'abcdef1'.padEnd(40, '0')
const OTHER = '1234567'.padEnd(40, '0')

/** The tasks and their reports, written through the repositories in one transaction (as bench/p1-edit.ts seeds). */
function seed(ctx: Ctx, statuses: readonly Task['status'][], d: { id: string; version: number; fingerprint: string }) {
  const { store } = ctx
  const dn = rowOf(d.id, 'd')
  const [impl, tess, rev] = store.members.list().map((m) => m.id)
  const report = (
    task: number,
    author: number | undefined,
    kind: 'implementation' | 'test' | 'review',
    commit: string,
    at: string,
  ) => {
    const id = store.reports.insert({
      task_id: task,
      author_id: author ?? null,
      kind,
      verdict: 'pass',
      summary: '',
      artifact_commit: commit,
      artifact_digest: null,
      claim_count: 2,
      created_at: at,
    })
    store.reports.insertBasis(id, dn, d.version, d.fingerprint)
    for (let c = 0; c < 2; c++)
      store.reports.insertClaimLink(store.reports.insertClaim(id, c, `claim ${c}`), id, dn, d.fingerprint)
  }
  store.transaction(() => {
    const at = new Date().toISOString()
    for (let i = 0; i < TASKS; i++) {
      const status = statuses[i % statuses.length]!
      const id = store.tasks.insert({
        title: `task ${i}`,
        spec: '',
        acceptance_criteria: '',
        assignee_id: impl ?? null,
        required_reports: '["test","review"]',
        created_at: at,
      })
      store.tasks.replaceLinks(id, [{ decisionId: dn, version: d.version, fingerprint: d.fingerprint }])
      const row = store.tasks.get(id)!
      const delivered = status === 'delivered' || status === 'accepted'
      store.tasks.update({ ...row, status, artifact_commit: delivered ? SHA : null, updated_at: at })
      if (status === 'in_progress') report(id, impl, 'implementation', SHA, at)
      if (delivered) {
        report(id, tess, 'test', i % 2 ? SHA : OTHER, at)
        report(id, rev, 'review', SHA, at)
      }
    }
  })
}

async function workspace(core: Core, root: string, name: string, statuses: readonly Task['status'][]) {
  const dir = join(root, name)
  mkdirSync(dir)
  const ws = await core.invoke('workspaces.open', { repoPath: dir, isolation: 'shared' })
  await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
  for (const [n, role] of [
    ['Impl', 'implementer'],
    ['Tess', 'tester'],
    ['Rev', 'reviewer'],
  ] as const)
    await core.invoke('members.create', { workspaceId: ws.id, name: n, role })
  const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Search timeout', statement: '5 s' })
  seed(core.harness.ctx(ws.id), statuses, d)
  return ws
}

/**
 * Median ms of one page, wall and CPU (this process's, less sensitive to other load on the machine), walking every page
 * `RUNS` times (the first walk is a warm-up); with readiness per card when asked.
 */
async function timePages(core: Core, workspaceId: string, perCard: boolean): Promise<{ wall: number; cpu: number }> {
  const wall: number[] = []
  const cpu: number[] = []
  for (let run = 0; run <= RUNS; run++) {
    let cursor: string | undefined
    do {
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      const page = await core.invoke('tasks.page', { workspaceId, limit: PAGE, ...(cursor ? { cursor } : {}) })
      if (perCard)
        for (const t of page.items)
          if (t.status === 'delivered' || t.status === 'in_progress')
            await (core.invoke as (m: string, p: unknown) => Promise<unknown>)('tasks.readiness', { taskId: t.id })
      const c = process.cpuUsage(c0)
      if (run) {
        wall.push(performance.now() - t0)
        cpu.push((c.user + c.system) / 1000)
      }
      cursor = page.nextCursor ?? undefined
    } while (cursor)
  }
  return { wall: median(wall), cpu: median(cpu) }
}

const both = (t: { wall: number; cpu: number }) => `${ms(t.wall)} (CPU ${ms(t.cpu)})`

export async function tasksPage(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-tasks-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    console.log(`T1  tasks.page, ${PAGE} of ${TASKS} tasks a page, median of ${RUNS} walks of every page`)
    for (const [name, statuses] of [
      ['mixed', ['todo', 'in_progress', 'delivered', 'accepted']],
      ['delivered', ['delivered']],
    ] as const) {
      const ws = await workspace(core, root, name, statuses)
      const first = await core.invoke('tasks.page', { workspaceId: ws.id, limit: PAGE })
      const carries = first.items.every((t) => 'readiness' in t)
      const page = await timePages(core, ws.id, false)
      const hasMethod = await (core.invoke as (m: string, p: unknown) => Promise<unknown>)('tasks.readiness', {
        taskId: first.items[0]!.id,
      }).then(
        () => true,
        () => false,
      )
      const withCards = hasMethod ? await timePages(core, ws.id, true) : null
      console.log(
        `    ${name.padEnd(10)} page ${both(page)}${carries ? ', readiness in the Task' : ''}` +
          (withCards === null ? '' : `; page + tasks.readiness per card ${both(withCards)}`),
      )
    }
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await tasksPage()
