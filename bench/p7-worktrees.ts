/**
 * P7: the repository workflow's own cost. Creating a task's branch and worktree (tasks.setStatus → in_progress) and
 * tasks.diff on a 2,000-file change, each measured side by side with the bare git commands it wraps, on the same
 * repository in the same run. Concord adds the safe-config wrapper (no program from repository config), the store
 * writes and the DTO.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { median, ms } from './util'
import { at } from '../eval/at'

const FILES = 2000
const ROUNDS = 5

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
const now = () => performance.now()

export async function p7(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-p7-'))
  const repo = join(root, 'repo')
  mkdirSync(join(repo, 'src'), { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  git(repo, 'config', 'user.name', 'Bench')
  git(repo, 'config', 'user.email', 'bench@concord.invalid')
  for (let i = 0; i < FILES; i++) writeFileSync(join(repo, 'src', `m${i}.ts`), `export const v${i} = ${i}\n`.repeat(20))
  git(repo, 'add', '-A')
  git(repo, 'commit', '-qm', 'base')
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repo })

    // --- worktree creation: Concord vs `git worktree add -b` of the same size ---
    const concord: number[] = []
    const bare: number[] = []
    const tasks: string[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: `Change ${r}` })
      tasks.push(task.id)
      let t0 = now()
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      concord.push(now() - t0)
      t0 = now()
      git(repo, 'worktree', 'add', '-q', '-b', `bare/${r}`, join(root, `bare-${r}`), 'main')
      bare.push(now() - t0)
    }
    const c = median(concord)
    const b = median(bare)
    console.log(
      `P7a create a task worktree (${FILES} files): Concord ${ms(c)} · bare git worktree add ${ms(b)} · ratio ${(c / b).toFixed(2)}×`,
    )

    // --- tasks.diff on a change of every file: Concord vs the three git diffs it runs ---
    const first = await core.invoke('tasks.get', { taskId: at(tasks, 0) })
    const dir = join(root, 'data', 'worktrees', ws.id, first.key)
    for (let i = 0; i < FILES; i++)
      writeFileSync(join(dir, 'src', `m${i}.ts`), `export const v${i} = ${i + 1}\n`.repeat(20))
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'change everything')
    const head = git(dir, 'rev-parse', 'HEAD').trim()
    const base = git(repo, 'rev-parse', 'main').trim()
    const diffC: number[] = []
    const diffB: number[] = []
    let files = 0
    let truncated = false
    for (let r = 0; r < ROUNDS; r++) {
      let t0 = now()
      const d = await core.invoke('tasks.diff', { taskId: first.id })
      diffC.push(now() - t0)
      files = d.files.length
      truncated = d.truncated
      t0 = now()
      git(repo, 'merge-base', base, head)
      git(repo, 'diff', '-z', '-M', '--name-status', base, head)
      git(repo, 'diff', '-z', '-M', '--numstat', base, head)
      git(repo, 'diff', '--no-color', '-M', base, head)
      diffB.push(now() - t0)
    }
    const dc = median(diffC)
    const db = median(diffB)
    console.log(
      `P7b tasks.diff on a ${files}-file change (patch truncated: ${truncated}): Concord ${ms(dc)} · bare git (merge-base + 3 diffs) ${ms(db)} · ratio ${(dc / db).toFixed(2)}×`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await p7()
