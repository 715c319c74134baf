/**
 * Issue 30's speed rows: what a move of the base branch costs.
 * - 50 open tasks (each in progress in its own tree, with a commit of its own), the user commits on main touching
 *   10 files: the time from the commit until every card shows the new base (each task's task.changed with base.head
 *   the new commit; noticed by the ref watcher, nothing asked), and the longest stall of the server's event loop
 *   meanwhile (perf_hooks' event-loop delay, 1 ms resolution). Targets: ≤ 2 s, ≤ 50 ms.
 * - A merge with 10 other open tasks: tasks.merge until the check of the 10 others against the new main has
 *   recorded its answers, side by side with the bare git commands that work needs on the same repository — the
 *   merge (`git merge --no-ff`) and one trial merge per open task (`git merge-tree --write-tree`). Target ≤ 1.5×.
 *   Concord also runs, per task, what the card shows (merge-base, how far behind, the files both sides changed),
 *   each git call inside the OS sandbox where bubblewrap is installed.
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createCore, type Core } from '../electron/main/core'
import type { Task } from '../shared/schemas'
import { median, ms, verdict } from './util'

const FILES = 200
const OPEN = 50
const MOVED = 10
const SIBLINGS = 10
const ROUNDS = 3

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@concord.invalid', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim()
const now = () => performance.now()
/** git without blocking this process's loop: the stall measured is the server's, not the bench's own git call. */
const gitAsync = async (cwd: string, ...args: string[]) =>
  (
    await promisify(execFile)('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@concord.invalid', ...args], {
      cwd,
      encoding: 'utf8',
    })
  ).stdout.trim()

function makeRepo(root: string): string {
  const repo = join(root, 'repo')
  mkdirSync(join(repo, 'src'), { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  for (let i = 0; i < FILES; i++) writeFileSync(join(repo, 'src', `m${i}.ts`), `export const v${i} = ${i}\n`.repeat(20))
  git(repo, 'add', '-A')
  git(repo, 'commit', '-qm', 'base')
  return repo
}

/** `n` tasks in progress, task i with one commit changing src/m<i>.ts in its tree. */
async function openTasks(core: Core, wsId: string, dataDir: string, n: number, offset = 0): Promise<Task[]> {
  const out: Task[] = []
  for (let i = 0; i < n; i++) {
    const task = await core.invoke('tasks.create', {
      workspaceId: wsId,
      title: `Change ${offset + i}`,
      requiredReports: [],
    })
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(dataDir, 'worktrees', wsId, task.key)
    writeFileSync(join(tree, 'src', `m${offset + i}.ts`), `export const v${offset + i} = 'task'\n`)
    git(tree, 'commit', '-qam', `task ${offset + i}`)
    out.push(task)
  }
  return out
}

/** Resolves once every task's card carries `head` as its base (the events the UI reads). */
function cardsAt(core: Core, ids: Set<string>, head: () => string | null): Promise<void> {
  return new Promise((resolve) => {
    const left = new Set(ids)
    const off = core.bus.on((e) => {
      if (e.event !== 'task.changed') return
      const t = e.payload.task
      if (t.base?.head && t.base.head === head()) left.delete(t.id)
      if (left.size === 0) {
        off()
        resolve()
      }
    })
  })
}

async function baseMoveRow(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-base-moves-'))
  const repo = makeRepo(root)
  const dataDir = join(root, 'data')
  const core = createCore({ dataDir, taskStartTurns: false })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repo, isolation: 'worktree' })
    const tasks = await openTasks(core, ws.id, dataDir, OPEN)
    // Every card has its first check (against main as it is) before the move is timed.
    await new Promise((r) => setTimeout(r, 500))
    await core.invoke('tasks.list', { workspaceId: ws.id })
    const ids = new Set(tasks.map((t) => t.id))
    const latency: number[] = []
    const stall: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      let moved: string | null = null
      const done = cardsAt(core, ids, () => moved)
      // The user's commit on main: 10 files, 5 of them also changed by open tasks.
      for (let i = 0; i < MOVED; i++)
        writeFileSync(join(repo, 'src', `m${i * 5 + r}.ts`), `export const v = 'main ${r}'\n`.repeat(3))
      const loop = monitorEventLoopDelay({ resolution: 1 })
      loop.enable()
      const t0 = now()
      await gitAsync(repo, 'commit', '-qam', `hotfix ${r}`)
      moved = await gitAsync(repo, 'rev-parse', 'HEAD')
      await done
      latency.push(now() - t0)
      loop.disable()
      stall.push(loop.max / 1e6)
    }
    const l = median(latency)
    const s = Math.max(...stall)
    console.log(
      `Base move, ${OPEN} open tasks, main moves by one commit touching ${MOVED} files: every card updated in ${ms(l)} (median of ${ROUNDS}; target ≤ 2000 ms, ratio ${(l / 2000).toFixed(2)} ${verdict(l <= 2000)}) · longest event-loop stall ${ms(s)} (target ≤ 50 ms, ratio ${(s / 50).toFixed(2)} ${verdict(s <= 50)})`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

async function mergeRow(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-merge-siblings-'))
  const repo = makeRepo(root)
  const dataDir = join(root, 'data')
  const core = createCore({ dataDir, taskStartTurns: false })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repo, isolation: 'worktree' })
    const siblings = await openTasks(core, ws.id, dataDir, SIBLINGS, 100)
    const ids = new Set(siblings.map((t) => t.id))
    const heads = siblings.map((t) => git(join(dataDir, 'worktrees', ws.id, t.key), 'rev-parse', 'HEAD'))
    const concord: number[] = []
    const bare: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const [task] = await openTasks(core, ws.id, dataDir, 1, 150 + r)
      await core.invoke('tasks.setStatus', { taskId: task!.id, status: 'delivered' })
      await core.invoke('tasks.accept', { taskId: task!.id })
      const commit = (await core.invoke('tasks.get', { taskId: task!.id })).artifact!.commit!
      await new Promise((res) => setTimeout(res, 300))

      let landed: string | null = null
      const checked = cardsAt(core, ids, () => landed)
      let t0 = now()
      const merged = await core.invoke('tasks.merge', { taskId: task!.id })
      landed = merged.merged!.commit
      await checked
      concord.push(now() - t0)

      // The same work as bare git on a copy of the repository at the same point (the task's commit is the merge's
      // second parent): the merge, then a trial merge per open task against the new head.
      const copy = join(root, `bare-${r}`)
      git(root, 'clone', '-q', '--no-local', repo, copy)
      git(copy, 'reset', '-q', '--hard', `${landed}^1`)
      for (const t of siblings) git(copy, 'fetch', '-q', join(dataDir, 'worktrees', ws.id, t.key), 'HEAD')
      t0 = now()
      git(copy, 'merge', '-q', '--no-ff', '--no-edit', commit)
      for (const h of heads) execFileSync('git', ['merge-tree', '--write-tree', 'HEAD', h], { cwd: copy })
      bare.push(now() - t0)
    }
    const c = median(concord)
    const b = median(bare)
    console.log(
      `Merge with ${SIBLINGS} other open tasks (until their cards are checked against the new main): Concord ${ms(c)} · bare git merge + ${SIBLINGS} trial merges ${ms(b)} · ratio ${(c / b).toFixed(2)}× (target ≤ 1.5× ${verdict(c / b <= 1.5)})`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

export async function baseMoves(): Promise<void> {
  // The ref watcher does not hold the process open (a server does): this timer does while the rows wait for it.
  const alive = setInterval(() => undefined, 1000)
  try {
    await baseMoveRow()
    await mergeRow()
  } finally {
    clearInterval(alive)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await baseMoves()
