/**
 * I1: a built-in member (Concord's own loop) mid-command, a normative change to its task's decision → its next model
 * request carries the notice. With "Interrupt and re-prompt" the command (a real `sleep 30` in the sandbox) is killed
 * and the loop goes on at once: target ≤ 1 s, median of TRIALS. Off, it hears after the command ends, as before: the
 * same with a 1.5 s command, edited as it starts (its figure is the rest of the command; no target).
 * Time from just before decisions.update to the model server receiving the request whose brief has the notice.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import type { Member, Workspace } from '../shared/schemas'
import { initRepo } from '../test/fixtures/core'
import { startModelServer } from '../test/fixtures/model-server'
import { median, ms, verdict } from './util'

const TRIALS = 5
const OFF_TRIALS = 3
const TARGET_MS = 1_000
const NOTICE = '## Notices since your last step'

function running(token: string): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(token)) return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`bench I1: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

export async function interruptBuiltin(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-interrupt-'))
  /** When the request carrying a notice arrived (this process's clock), for the trial waiting on it. */
  let noticeAt: ((t: number) => void) | null = null
  const server = await startModelServer({
    unscripted: (req) => {
      const system: unknown = (req.body as { messages?: { content?: unknown }[] } | undefined)?.messages?.[0]?.content
      if (typeof system === 'string' && system.includes(NOTICE)) noticeAt?.(performance.now())
      return undefined
    },
  })
  const core = createCore({ dataDir: join(root, 'data'), provider: { maxRetries: 0 }, taskStartTurns: false })
  try {
    const trial = async (ws: Workspace, m: Member, i: number, command: (token: string) => string): Promise<number> => {
      const d = await core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: `Timeout ${i}`,
        statement: 'Web search gives up after 5 s',
      })
      const task = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title: `Search ${i}`,
        assigneeId: m.id,
        decisionIds: [d.id],
      })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const token = `bench-${i}-${Math.random().toString(36).slice(2, 10)}`
      server.enqueue(
        { toolCalls: [{ name: 'run_command', arguments: { command: command(token) } }] },
        { text: 'Re-planned.' },
      )
      const idle = new Promise<void>((resolve) => {
        const off = core.bus.on((e) => {
          if (
            e.event === 'session.state' &&
            e.payload.session.memberId === m.id &&
            e.payload.session.state === 'idle' &&
            e.payload.session.queued === 0
          ) {
            off()
            resolve()
          }
        })
      })
      await core.invoke('sessions.send', { memberId: m.id, taskId: task.id, text: 'Build it and run the tests.' })
      await until(() => running(token), 'the command to start')
      const arrived = new Promise<number>((resolve) => (noticeAt = resolve))
      const t0 = performance.now()
      await core.invoke('decisions.update', {
        decisionId: d.id,
        expectedVersion: d.version,
        statement: 'Web search gives up after 10 s',
        reason: 'slow providers',
      })
      const t1 = await arrived
      noticeAt = null
      await idle
      await until(() => !running(token), 'the command to be gone')
      return t1 - t0
    }
    const run = async (interruptOnAdjustment: boolean, n: number, command: (token: string) => string) => {
      const repo = join(root, interruptOnAdjustment ? 'on' : 'off')
      mkdirSync(repo)
      initRepo(repo)
      const ws = await core.invoke('workspaces.open', { repoPath: repo, isolation: 'shared' })
      // Its flag turns would run between trials and take the scripted replies: this row is about the running turn.
      await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
      const provider = {
        kind: 'openai' as const,
        model: 'gpt-bench',
        baseURL: server.openaiBaseURL,
        apiKey: 'sk-bench',
        interruptOnAdjustment,
      }
      const m = await core.invoke('members.create', {
        workspaceId: ws.id,
        name: 'Ivy',
        role: 'implementer',
        provider,
        approval: 'auto',
      })
      const xs: number[] = []
      for (let i = 0; i < n; i++) xs.push(await trial(ws, m, i, command))
      return xs
    }
    const on = await run(true, TRIALS, (token) => `sleep 30; echo ${token}`)
    const off = await run(false, OFF_TRIALS, (token) => `sleep 1.5; echo ${token}`)
    const mOn = median(on)
    console.log(
      `I1  built-in member mid-command (real sleep 30 in the sandbox), normative edit → next model request with the notice, median of ${TRIALS}`,
    )
    console.log(
      `    Interrupt and re-prompt on: ${ms(mOn)} (target ≤ ${TARGET_MS} ms: ${verdict(mOn <= TARGET_MS)}); trials ${on.map((x) => x.toFixed(0)).join(', ')} ms`,
    )
    console.log(
      `    off (a 1.5 s command, edited as it starts): ${ms(median(off))}, after the command ends as the setting says (no target)`,
    )
  } finally {
    await core.close()
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
}
