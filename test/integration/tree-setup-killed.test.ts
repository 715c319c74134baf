/**
 * A Concord killed (SIGKILL, a real `concord serve`) while a task's tree runs its setup command: the setup was recorded
 * before it ran, so after the restart the card shows it "interrupted", and it runs again before the assignee's next
 * turn in that tree, which then finds the tree set up (issue 32).
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { initRepo, waitForEvent } from '../fixtures/core'
import { apiClient, startServe } from '../fixtures/http'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { scriptedOpenAI } from '../fixtures/workspace'

let child: ChildProcess | null = null
let server: ModelServer | null = null
let root = ''

afterEach(async () => {
  child?.kill('SIGKILL')
  await server?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`)
}

it('a setup cut by kill -9 is shown interrupted after the restart and runs again before the next turn', async () => {
  root = mkdtempSync(join(tmpdir(), 'concord-setup-killed-'))
  const dataDir = join(root, 'data')
  const repo = join(root, 'repo')
  mkdirSync(repo)
  initRepo(repo)
  server = await startModelServer()
  const served = startServe(dataDir, 'setup-killed-token')
  child = served.child
  const api = apiClient(await served.url, 'setup-killed-token')
  const ws = await api('workspaces.open', { repoPath: repo })
  // The first run hangs (the kill comes then); the second one finishes.
  await api('workspaces.update', {
    workspaceId: ws.id,
    setupCommand:
      'echo go >> setup-runs.txt; if [ "$(wc -l < setup-runs.txt)" -eq 1 ]; then sleep 120; fi; echo ok > setup-done.txt',
  })
  const m = await api('members.create', {
    workspaceId: ws.id,
    name: 'Impl',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedOpenAI(server),
  })
  for (let i = 0; i < 4; i++) server.enqueue({ text: 'Working in the tree.' })
  const task = await api('tasks.create', { workspaceId: ws.id, title: 'Feature', assigneeId: m.id })
  await api('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  const tree = join(dataDir, 'worktrees', ws.id, 'T-1')
  await until('the setup to start', () => existsSync(join(tree, 'setup-runs.txt')))
  child.kill('SIGKILL')
  await new Promise((r) => child!.once('exit', r))
  child = null
  expect(existsSync(join(tree, 'setup-done.txt'))).toBe(false)

  const core = createCore({ dataDir, taskStartTurns: false, provider: { maxRetries: 0 } })
  try {
    const runs = await core.invoke('tasks.treeRuns', { taskId: task.id })
    expect(runs.map((r) => [r.kind, r.state])).toEqual([['setup', 'interrupted']])
    expect(runs[0]!.output).toContain('interrupted')
    const before = server.requests.length
    const idle = waitForEvent(
      core,
      (e) => e.event === 'session.state' && e.payload.session.state === 'idle' && e.payload.session.queued === 0,
      60_000,
    )
    await core.invoke('sessions.send', { memberId: m.id, text: 'Carry on' })
    await idle
    expect(server.requests.length).toBeGreaterThan(before) // the turn ran
    expect(readFileSync(join(tree, 'setup-runs.txt'), 'utf8')).toBe('go\ngo\n')
    expect(readFileSync(join(tree, 'setup-done.txt'), 'utf8')).toBe('ok\n')
    const after = await core.invoke('tasks.treeRuns', { taskId: task.id })
    expect(after.map((r) => [r.kind, r.state])).toEqual([['setup', 'passed']])
  } finally {
    await core.close()
  }
}, 120_000)
