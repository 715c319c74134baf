/**
 * A task's tree ready to work in, on a real git repository: the workspace's listed files copied from the checkout
 * (hostile paths refused when saved, a symlink out of the checkout refused when copied), the setup command run in the
 * tree when it is created, its output kept (tasks.treeRuns) and a failure visible without harming the tree; and the
 * run command started, refused a second time while it runs, its output streamed, and stopped.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/contract'
import type { TreeRun, Workspace } from '../../shared/schemas'
import { makeCore, rejectsWith, waitForEvent, type TestCore } from '../fixtures/core'

let t: TestCore
let ws: Workspace

beforeEach(async () => {
  t = makeCore({ git: true })
  writeFileSync(join(t.repoDir, '.gitignore'), '.env\nconfig/local.json\nleak\n')
  execFileSync('git', ['add', '.gitignore'], { cwd: t.repoDir })
  execFileSync('git', ['commit', '-q', '-m', 'ignore'], { cwd: t.repoDir })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(() => t.cleanup())

const ended = (kind: TreeRun['kind'], timeout = 30_000) =>
  waitForEvent<{ run: TreeRun }>(
    t.core,
    (e: EventEnvelope) =>
      e.event === 'task.treeRun' && e.payload.run.kind === kind && e.payload.run.state !== 'running',
    timeout,
  ).then((e) => e.payload.run)

async function startTask(title: string) {
  const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title })
  return t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
}

describe('copied files', () => {
  it('refuses paths that leave the checkout or name .git, when they are saved', async () => {
    for (const [bad, words] of [
      ['../secrets.env', 'leaves your checkout'],
      ['/etc/passwd', 'is absolute'],
      ['.git/config', "git's own folder"],
      ['config/../../x', 'leaves your checkout'],
      ['sub/.GIT/hooks/pre-commit', "git's own folder"],
    ] as const) {
      const err = await rejectsWith(
        t.core.invoke('workspaces.update', { workspaceId: ws.id, copyFiles: ['.env', bad] }),
        'invalid_params',
      )
      expect(err.message).toContain(words)
    }
    expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).copyFiles).toEqual([])
    const saved = await t.core.invoke('workspaces.update', {
      workspaceId: ws.id,
      copyFiles: ['./.env', 'config/*.json'],
    })
    expect(saved.copyFiles).toEqual(['.env', 'config/*.json'])
  })
})

describe('setup of a new tree', () => {
  it('copies the listed files, refuses a symlink out of the checkout, then runs the setup command in the tree', async () => {
    writeFileSync(join(t.repoDir, '.env'), 'TOKEN=local\n')
    mkdirSync(join(t.repoDir, 'config'))
    writeFileSync(join(t.repoDir, 'config', 'local.json'), '{"port": 5173}\n')
    const outside = join(t.dataDir, '..', 'outside.txt')
    writeFileSync(outside, 'not yours\n')
    symlinkSync(outside, join(t.repoDir, 'leak'))
    await t.core.invoke('workspaces.update', {
      workspaceId: ws.id,
      copyFiles: ['.env', 'config/*.json', 'app.ts'],
      setupCommand:
        'test -f .env && grep -q 5173 config/local.json && echo deps-installed > setup-ran.txt && echo setup ok',
    })
    const done = ended('setup')
    const task = await startTask('Feature')
    const run = await done
    const tree = join(t.dataDir, 'worktrees', ws.id, 'T-1')
    expect(run).toMatchObject({ taskId: task.id, state: 'passed', exitCode: 0 })
    expect(run.state).toBe('passed')
    expect(run.copied.sort()).toEqual(['.env', 'config/local.json'])
    expect(run.refused).toEqual([])
    expect(readFileSync(join(tree, '.env'), 'utf8')).toBe('TOKEN=local\n')
    expect(readFileSync(join(tree, 'setup-ran.txt'), 'utf8')).toBe('deps-installed\n')
    expect(run.output).toContain('setup ok')
    // `leak` is ignored but not listed; listed now, it is refused by name.
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, copyFiles: ['leak'], setupCommand: '' })
    const again = ended('setup')
    await t.core.invoke('tasks.setupAgain', { taskId: task.id })
    const second = await again
    expect(second.refused).toEqual(['leak (a symlink out of your checkout)'])
    expect(second.state).toBe('failed')
    expect(existsSync(join(tree, 'leak'))).toBe(false)
    // The record is kept: what the card reads.
    const kept = await t.core.invoke('tasks.treeRuns', { taskId: task.id })
    expect(kept.map((r) => [r.kind, r.state])).toEqual([['setup', 'failed']])
  })

  it('a failing setup is shown with its output and exit code; the tree stays usable', async () => {
    await t.core.invoke('workspaces.update', {
      workspaceId: ws.id,
      setupCommand: 'echo npm ERR! missing lockfile; exit 3',
    })
    const done = ended('setup')
    const task = await startTask('Broken setup')
    const run = await done
    expect(run).toMatchObject({ state: 'failed', exitCode: 3 })
    expect(run.output).toContain('npm ERR! missing lockfile')
    const now = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(now.status).toBe('in_progress')
    expect(now.branch).toBeTruthy()
    expect((await t.core.invoke('tasks.diff', { taskId: task.id })).files).toEqual([])
  })
})

describe('the run command', () => {
  it('starts in the tree, one at a time, streams its output, and stops', async () => {
    const task = await startTask('Server')
    await rejectsWith(t.core.invoke('tasks.run', { taskId: task.id }), 'invalid_params')
    await t.core.invoke('workspaces.update', {
      workspaceId: ws.id,
      runCommand: 'echo "serving $(basename "$PWD")"; sleep 60',
    })
    const printed = waitForEvent<{ run: TreeRun }>(
      t.core,
      (e: EventEnvelope) => e.event === 'task.treeRun' && e.payload.run.output.includes('serving T-1'),
      20_000,
    )
    const started = await t.core.invoke('tasks.run', { taskId: task.id })
    expect(started).toMatchObject({
      kind: 'run',
      state: 'running',
      command: 'echo "serving $(basename "$PWD")"; sleep 60',
    })
    await printed
    const err = await rejectsWith(t.core.invoke('tasks.run', { taskId: task.id }), 'invalid_transition')
    expect(err.message).toContain('already running')
    const stopped = await t.core.invoke('tasks.stopRun', { taskId: task.id })
    expect(stopped.state).toBe('stopped')
    expect(stopped.output).toContain('serving T-1')
    await rejectsWith(t.core.invoke('tasks.stopRun', { taskId: task.id }), 'invalid_transition')
    expect((await t.core.invoke('tasks.treeRuns', { taskId: task.id })).map((r) => r.state)).toEqual(['stopped'])
  }, 60_000)

  it('is stopped when its task is merged: the tree goes, and nothing keeps running in it', async () => {
    // A number no other process on the machine sleeps for: the run's process is found by its command line.
    const marker = `sleep ${6000 + Math.floor(Math.random() * 3000)}.5`
    const running = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').includes(marker)
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, runCommand: `echo serving; exec ${marker}` })
    const task = await startTask('Server')
    const tree = join(t.dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(tree, 'feature.txt'), 'f\n')
    execFileSync('git', ['add', '-A'], { cwd: tree })
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'feature'], { cwd: tree })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await t.core.invoke('tasks.update', { taskId: task.id, requiredReports: [] })
    await t.core.invoke('tasks.accept', { taskId: task.id })
    await t.core.invoke('tasks.run', { taskId: task.id })
    await expect.poll(running, { timeout: 20_000 }).toBe(true)
    const merged = await t.core.invoke('tasks.merge', { taskId: task.id })
    expect(merged.merged).toBeTruthy()
    expect(existsSync(tree)).toBe(false)
    await expect.poll(running, { timeout: 10_000 }).toBe(false)
    expect((await t.core.invoke('tasks.treeRuns', { taskId: task.id })).find((r) => r.kind === 'run')?.state).toBe(
      'stopped',
    )
  }, 60_000)
})
