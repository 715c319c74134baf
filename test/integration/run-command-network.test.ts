/**
 * The run command started from a task's card runs code a member may have written: a script it names that a member
 * changed since the user last ran it (here: since the task's base) runs with the network off this once, and the run
 * says which file and why; an unchanged script keeps the tree's network (issue 32). The network is a real HTTP server
 * on 127.0.0.1 in this process; the sandbox is the real one (skipped where there is none: no network to take away).
 */
import { execFileSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/contract'
import type { TreeRun, Workspace } from '../../shared/schemas'
import { sandboxStatus } from '../../electron/main/platform/sandbox/status'
import { makeCore, waitForEvent, type TestCore } from '../fixtures/core'

let t: TestCore
let ws: Workspace
let http: Server
let hits = 0

const probe = (port: number) =>
  `node -e "require('http').get('http://127.0.0.1:${port}/', (r) => console.log('reached', r.statusCode)).on('error', (e) => console.log('unreachable', e.code))"\n`

beforeEach(async () => {
  hits = 0
  http = createServer((_req, res) => {
    hits++
    res.end('hi')
  })
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  t = makeCore({ git: true })
  writeFileSync(join(t.repoDir, 'dev.sh'), probe((http.address() as AddressInfo).port))
  execFileSync('git', ['add', 'dev.sh'], { cwd: t.repoDir })
  execFileSync('git', ['commit', '-q', '-m', 'dev script'], { cwd: t.repoDir })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
  await t.core.invoke('workspaces.update', { workspaceId: ws.id, runCommand: 'sh ./dev.sh' })
})
afterEach(async () => {
  await t.cleanup()
  await new Promise((r) => http.close(r))
})

async function runFromCard(taskId: string): Promise<TreeRun> {
  const ended = waitForEvent<{ run: TreeRun }>(
    t.core,
    (e: EventEnvelope) =>
      e.event === 'task.treeRun' && e.payload.run.kind === 'run' && e.payload.run.state !== 'running',
    30_000,
  )
  await t.core.invoke('tasks.run', { taskId })
  return (await ended).payload.run
}

async function startTask() {
  const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Server' })
  return t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
}

it('an unchanged script keeps the tree network: it reaches the local server', async (ctx) => {
  const st = await sandboxStatus()
  if (!st.available) return ctx.skip(`no sandbox here: ${st.reason}`)
  const task = await startTask()
  const run = await runFromCard(task.id)
  expect(run.output).toContain('reached 200')
  expect(run).toMatchObject({ state: 'passed', memberChanged: [], network: true })
  expect(hits).toBe(1)
}, 60_000)

it('a script a member changed runs without the network, once, and the run says why', async (ctx) => {
  const st = await sandboxStatus()
  if (!st.available) return ctx.skip(`no sandbox here: ${st.reason}`)
  const task = await startTask()
  // The member rewrites the script in its tree (a sandboxed member without network of its own).
  const tree = join(t.dataDir, 'worktrees', ws.id, task.key)
  writeFileSync(join(tree, 'dev.sh'), `echo member was here\n${probe((http.address() as AddressInfo).port)}`)
  const run = await runFromCard(task.id)
  expect(run.output).toContain('member was here')
  expect(run.output).toContain('unreachable')
  expect(run.output).toContain('network off: dev.sh changed by a member since you last ran it')
  expect(run).toMatchObject({ memberChanged: ['dev.sh'], network: false })
  expect(hits).toBe(0)
  // The user has now run it as it is (and seen why it was offline): the next run has the tree's network again.
  const again = await runFromCard(task.id)
  expect(again).toMatchObject({ memberChanged: [], network: true })
  expect(again.output).toContain('reached 200')
  expect(hits).toBe(1)
}, 60_000)
