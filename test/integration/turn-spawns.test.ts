/**
 * A turn starts no child process on the server's event loop: `spawn` forks the whole server before the child runs,
 * which stalls every stream and request (P3), and the *Sync functions block it for the child's whole run. A real
 * turn in a real repository — a task's tree, the snapshots at its start and end, read/write/git tools, a command, a
 * commit, a report with a short SHA — with every way of starting a process in this thread counted.
 */
import childProcess from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Step, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, isolation: 'worktree' })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

/** Counts every process this thread starts (async ones all go through ChildProcess#spawn) until `stop`. */
function countSpawns(): { calls: string[]; stop: () => void } {
  const calls: string[] = []
  const proto = childProcess.ChildProcess.prototype as unknown as { spawn: (o: { file: string }) => unknown }
  const spawn = proto.spawn
  proto.spawn = function (this: unknown, o: { file: string; args?: string[] }) {
    calls.push(`spawn ${o.args?.slice(-3).join(' ') ?? o.file}`)
    return spawn.call(this, o)
  }
  const mod = childProcess as unknown as Record<string, (...a: unknown[]) => unknown>
  const sync = ['spawnSync', 'execFileSync', 'execSync'] as const
  const saved = sync.map((name) => mod[name])
  sync.forEach((name, i) => {
    mod[name] = (...a: unknown[]) => {
      calls.push(`${name} ${String(a[0])}`)
      return saved[i]!(...a)
    }
  })
  syncBuiltinESMExports()
  return {
    calls,
    stop() {
      proto.spawn = spawn
      sync.forEach((name, i) => (mod[name] = saved[i]!))
      syncBuiltinESMExports()
    },
  }
}

it('a turn in a task tree (snapshots, git tools, a command, a commit, a report) spawns nothing on the event loop', async () => {
  const ivy = await t.member('Ivy', { role: 'implementer' })
  const task = await startedTask(t.core, { workspaceId: ws.id, title: 'Feature', assigneeId: ivy.id })
  server.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'feature.ts', content: 'export const f = 1\n' } }] },
    { toolCalls: [{ name: 'git_status', arguments: {} }] },
    { toolCalls: [{ name: 'run_command', arguments: { command: 'echo ran' } }] },
    { toolCalls: [{ name: 'git_commit', arguments: { message: 'feature' } }] },
    (r) => {
      const sha = /\b([0-9a-f]{40})\b/.exec(JSON.stringify(r.body.messages.at(-1)))?.[1] ?? 'HEAD'
      return {
        toolCalls: [
          {
            name: 'submit_report',
            arguments: {
              taskId: 'T-1',
              kind: 'implementation',
              verdict: 'pass',
              summary: 'done',
              commit: sha.slice(0, 8),
              claims: [],
            },
          },
        ],
      }
    },
    { text: 'Done.' },
  )
  const idle = sessionState(t.core, ivy.id, 'idle', { timeoutMs: 30_000 })
  const spawns = countSpawns()
  try {
    await t.core.invoke('sessions.send', { memberId: ivy.id, text: 'Build it, commit, report.', taskId: task.id })
    await idle
  } finally {
    spawns.stop()
  }
  const steps: Step[] = (await t.core.invoke('sessions.get', { memberId: ivy.id })).steps
  const tools = steps.filter((s) => s.kind === 'tool')
  // The turn did what it says, through git and the sandbox...
  expect(tools.map((s) => [s.tool?.name, s.status])).toEqual([
    ['write_file', 'done'],
    ['git_status', 'done'],
    ['run_command', 'done'],
    ['git_commit', 'done'],
    ['submit_report', 'done'],
  ])
  expect(tools[2]!.text).toContain('ran')
  const dir = `${t.dataDir}/worktrees/${ws.id}/${task.key}`
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim()
  const [report] = await t.core.invoke('reports.list', { taskId: task.id })
  expect(report!.artifact.commit).toBe(head)
  expect(steps.at(-1)?.changes).toEqual([{ path: 'feature.ts', status: 'added' }])
  // ... and no process was started on the event loop.
  expect(spawns.calls).toEqual([])
})
