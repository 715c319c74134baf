/**
 * Concord knows when the base moves (issue 30), in a real repository with real task trees: a sibling's merge and the
 * user's own commit on main take the other delivered tasks whose merge would land an unchecked tree out of "ready",
 * within a moment and through the ref watcher alone (no call asks for it); a conflict is found by a trial merge that
 * touches neither the trees nor the user's checkout; a task in progress that changed the same file is told in its
 * member's brief; and a move that leaves a task's merge a fast-forward concerns nobody.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync, mkdirSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { buildBrief } from '../../electron/main/runtime/brief'
import { rejectsWith } from '../fixtures/core'
import { startedTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let ws: Workspace
let ivy: Member

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)
const search = (lines: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => lines[i] ?? `line ${i}`).join('\n') + '\n'
const get = (task: Task) => t.core.invoke('tasks.get', { taskId: task.id })

beforeEach(async () => {
  t = await openWorkspace({ git: true })
  ws = t.ws
  // src/search.js on main, committed before the tasks start: every tree branches from it.
  mkdirSync(join(t.repoDir, 'src'))
  writeFileSync(join(t.repoDir, 'src', 'search.js'), search())
  git(t.repoDir, 'add', '-A')
  git(t.repoDir, 'commit', '-qm', 'search')
  ivy = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Ivy',
    role: 'implementer',
    approval: 'auto',
  })
})
afterEach(() => t.cleanup())

/** A task started, its files written and committed in its tree. */
async function committed(title: string, files: Record<string, string>): Promise<Task> {
  const task = await startedTask(t.core, { workspaceId: ws.id, title, assigneeId: ivy.id, requiredReports: [] })
  const dir = treeOf(task)
  for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', title)
  return task
}

async function delivered(title: string, files: Record<string, string>): Promise<Task> {
  const task = await committed(title, files)
  const done = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  expect(done.readiness.ready).toBe(true)
  // The delivery's own check has run (against main as it is now): what a test moves next is a move.
  const main = git(t.repoDir, 'rev-parse', 'main')
  await expect.poll(async () => (await get(task)).base).toMatchObject({ commit: done.artifact!.commit, head: main })
  return done
}

const codes = (task: Task) => task.readiness.reasons.map((r) => r.code)
const treeState = (task: Task) => ({
  head: git(treeOf(task), 'rev-parse', 'HEAD'),
  status: git(treeOf(task), 'status', '--porcelain', '--ignored'),
})
const checkout = () => ({ head: git(t.repoDir, 'rev-parse', 'HEAD'), status: git(t.repoDir, 'status', '--porcelain') })

describe('a sibling merge', () => {
  it('takes the other delivered task out of ready, names the overlap, and tells the task in progress', async () => {
    const t1 = await delivered('Results', { 'src/search.js': search({ 1: 'return { results, incomplete }' }) })
    const t2 = await delivered('Bullets', { 'src/search.js': search({ 10: 'bullets(search())' }) })
    const t3 = await committed('Spinner', { 'src/search.js': search({ 6: 'spinner()' }) })
    await t.core.invoke('tasks.accept', { taskId: t1.id })
    // Every card the user is shown for T-2 on the new main names T-1 as the overlap: the check that runs while T-1's
    // tree goes already knows the commit its merge made.
    const shown: unknown[] = []
    const off = t.core.bus.on((e) => {
      if (e.event !== 'task.changed') return
      const { task } = e.payload
      if (task.id === t2.id && task.base && task.base.behind > 0) shown.push(task.base.overlaps)
    })
    await t.core.invoke('tasks.merge', { taskId: t1.id })

    await expect.poll(async () => codes(await get(t2))).toEqual(['base_moved'])
    off()
    expect(shown.length).toBeGreaterThan(0)
    for (const o of shown) expect(o).toMatchObject([{ key: t1.key, files: ['src/search.js'] }])
    const after = await get(t2)
    expect(after.readiness.ready).toBe(false)
    expect(after.base).toMatchObject({
      branch: 'main',
      behind: 2,
      conflicts: null,
      landsAsChecked: false,
      overlaps: [{ key: t1.key, files: ['src/search.js'] }],
    })
    expect(after.readiness.reasons[0]!.message).toContain(`main moved since ${t2.key}'s evidence was made`)
    expect(after.readiness.reasons[0]!.action?.label).toBe(`Ask Ivy to update ${t2.key} from main`)
    const refused = await rejectsWith(t.core.invoke('tasks.accept', { taskId: t2.id }), 'base_moved')
    expect(refused.details).toMatchObject({ reasons: [{ code: 'base_moved' }] })

    // The task in progress that changed the same file is told at its member's next step: its brief says so.
    await expect.poll(async () => (await get(t3)).base?.overlaps.length).toBe(1)
    const ctx = t.core.harness.ctx(ws.id)
    const brief = buildBrief(
      ctx,
      ctx.store.members.list().find((m) => m.name === 'Ivy')!,
      [],
    ).text
    expect(brief).toContain(`main moved: ${t1.key} merged and changed src/search.js, which you changed.`)
  })

  it('an accepted task whose merge would land an unchecked tree is not landed as it is: queued, updated, then landed', async () => {
    const t1 = await delivered('Results', { 'src/search.js': search({ 1: 'results' }) })
    const t2 = await delivered('Other', { 'other.txt': 'other\n' })
    await t.core.invoke('tasks.accept', { taskId: t1.id })
    await t.core.invoke('tasks.accept', { taskId: t2.id })
    await t.core.invoke('tasks.merge', { taskId: t1.id })
    // No file in common: behind, no overlap, and still not what its evidence checked.
    await expect.poll(async () => codes(await get(t2))).toEqual(['base_moved'])
    expect((await get(t2)).base).toMatchObject({ behind: 2, overlaps: [], conflicts: null })
    // Verified merges (default): queued, not refused, and not landed on its old commit.
    const queued = await t.core.invoke('tasks.merge', { taskId: t2.id })
    expect(queued.merged).toBeNull()
    expect(queued.mergeQueue).toMatchObject({ position: 1 })
    // It requires no report: once updated, its new head is what lands, exactly.
    await expect.poll(async () => (await get(t2)).merged, { timeout: 20_000 }).not.toBeNull()
    const done = await get(t2)
    expect(done.artifact!.commit).not.toBe(t2.artifact!.commit)
    expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(
      git(t.repoDir, 'rev-parse', `${done.artifact!.commit}^{tree}`),
    )
  })
})

describe('the merge preview', () => {
  it('names what merging does before it is done: the overlapping task, the one to verify again, the one behind', async () => {
    const t1 = await delivered('Results', { 'src/search.js': search({ 1: 'results' }) })
    const t2 = await delivered('Bullets', { 'src/search.js': search({ 10: 'bullets' }) })
    const t3 = await delivered('Docs', { 'docs.md': 'docs\n' })
    const t4 = await committed('Spinner', { 'spin.js': 'spin\n' })
    await t.core.invoke('tasks.accept', { taskId: t1.id })
    const before = checkout()
    const preview = await t.core.invoke('tasks.mergePreview', { taskId: t1.id })
    expect(checkout()).toEqual(before)
    expect(preview).toMatchObject({ key: t1.key, baseBranch: 'main', blocked: null, files: ['src/search.js'] })
    expect(preview.others.map((o) => [o.key, o.effect, o.overlaps])).toEqual([
      [t2.key, 'overlaps', ['src/search.js']],
      [t3.key, 'reverify', []],
      [t4.key, 'behind', []],
    ])
    expect(preview.text).toBe(
      `Merging ${t1.key} moves main: ${t2.key} overlaps (src/search.js) and will need updating and verifying again; ${t3.key} will need verifying again on the new main. Verified merge: main only receives a tree a passing test checked.`,
    )
    // After the merge, the other's preview says why it cannot land now, with tasks.merge's code.
    await t.core.invoke('tasks.merge', { taskId: t1.id })
    const next = await t.core.invoke('tasks.mergePreview', { taskId: t2.id })
    expect(next.blocked?.code).toBe('base_moved')
    expect(next.text).toContain(`Merge queues ${t2.key}`)
    expect(next.queued).toBe(true)
  })
})

describe("the user's own commits on main", () => {
  it('a commit on main takes an overlapping delivered task out of ready through the ref watcher alone', async () => {
    const task = await delivered('Bullets', { 'src/search.js': search({ 10: 'bullets(search())' }) })
    writeFileSync(join(t.repoDir, 'src', 'search.js'), search({ 1: 'hotfix' }))
    git(t.repoDir, 'commit', '-qam', 'hotfix')
    await expect.poll(async () => codes(await get(task))).toEqual(['base_moved'])
    expect((await get(task)).base).toMatchObject({
      behind: 1,
      overlaps: [{ key: null, taskId: null, files: ['src/search.js'] }],
    })
  })

  it('a conflict is found by a trial merge that touches neither the tree nor your checkout', async () => {
    const task = await delivered('Bullets', { 'src/search.js': search({ 5: 'from the task' }) })
    const tree = treeState(task)
    writeFileSync(join(t.repoDir, 'src', 'search.js'), search({ 5: 'from main' }))
    git(t.repoDir, 'commit', '-qam', 'clash')
    const mine = checkout()
    await expect.poll(async () => codes(await get(task))).toEqual(['merge_conflict'])
    expect((await get(task)).base).toMatchObject({ conflicts: ['src/search.js'], landsAsChecked: false })
    expect(treeState(task)).toEqual(tree)
    expect(checkout()).toEqual(mine)
    await rejectsWith(t.core.invoke('tasks.accept', { taskId: task.id }), 'merge_conflict')
  })

  it('a move that leaves a task’s merge a fast-forward concerns nobody (a reset back, then a pull forward)', async () => {
    const start = git(t.repoDir, 'rev-parse', 'HEAD')
    const task = await delivered('Bullets', { 'src/search.js': search({ 10: 'bullets' }) })
    await expect.poll(async () => (await get(task)).base?.head).toBe(start)
    git(t.repoDir, 'reset', '-q', '--keep', 'HEAD~1')
    const back = git(t.repoDir, 'rev-parse', 'HEAD')
    await expect.poll(async () => (await get(task)).base?.head).toBe(back)
    expect((await get(task)).readiness.ready).toBe(true)
    git(t.repoDir, 'merge', '-q', '--ff-only', start)
    await expect.poll(async () => (await get(task)).base?.head).toBe(start)
    const now = await get(task)
    expect(now.readiness).toMatchObject({ ready: true, reasons: [] })
    expect(now.base).toMatchObject({ behind: 0, overlaps: [], landsAsChecked: true })
    const moves = (await t.core.invoke('events.list', { workspaceId: ws.id, limit: 1000 })).filter(
      (e) => e.type === 'base.moved',
    )
    expect(moves.map((e) => (e.payload as { concerned: number[] }).concerned)).toEqual([[], []])
  })
})

describe('a preview asked while a merge is under way', () => {
  it('answers with a code, not a failure, for the task being merged (its tree already gone) and leaves it out of the others', async () => {
    const t1 = await delivered('Results', { 'src/search.js': search({ 1: 'results' }) })
    const t2 = await delivered('Docs', { 'docs.md': 'docs\n' })
    await t.core.invoke('tasks.accept', { taskId: t1.id })
    // What tasks.merge leaves between landing and recording the merge: the record of it running, the tree removed.
    const db = new Database(join(t.dataDir, 'workspaces', `${ws.id}.sqlite`))
    db.prepare('UPDATE task_branches SET merging = ? WHERE task_id = ?').run(
      JSON.stringify({ head: git(t.repoDir, 'rev-parse', 'HEAD'), commit: 'x', at: new Date().toISOString() }),
      Number(t1.key.slice(2)),
    )
    db.close()
    // Removed part-way: rm goes through the folder in no set order, so git may find its folder with nothing in it.
    rmSync(treeOf(t1), { recursive: true, force: true })
    mkdirSync(join(treeOf(t1), '.git'), { recursive: true })
    await rejectsWith(t.core.invoke('tasks.mergePreview', { taskId: t1.id }), 'invalid_transition')
    const other = await t.core.invoke('tasks.mergePreview', { taskId: t2.id })
    expect(other.others.map((o) => o.key)).toEqual([])
  })
})

describe('previews asked while the merge runs', () => {
  it('each answers or refuses with a code: none fails', async () => {
    const t1 = await delivered('Results', { 'src/search.js': search({ 1: 'results' }) })
    const t2 = await delivered('Docs', { 'docs.md': 'docs\n' })
    await t.core.invoke('tasks.accept', { taskId: t1.id })
    const previews: Promise<unknown>[] = []
    let done = false
    const merge = t.core.invoke('tasks.merge', { taskId: t1.id }).finally(() => (done = true))
    // A pair of previews every few milliseconds for as long as the merge runs (at most 30 pairs).
    for (let i = 0; i < 30 && !done; i++) {
      previews.push(
        t.core.invoke('tasks.mergePreview', { taskId: t1.id }),
        t.core.invoke('tasks.mergePreview', { taskId: t2.id }),
      )
      await new Promise((r) => setTimeout(r, 10))
    }
    await merge
    const failures = (await Promise.allSettled(previews))
      .filter((r) => r.status === 'rejected')
      .map((r) => r.reason as { code?: string; message?: string })
      .filter((e) => e.code !== 'invalid_transition')
      .map((e) => `${e.code}: ${e.message}`)
    expect(failures).toEqual([])
  }, 60_000)
})
