/**
 * A1: the same normative edit over HTTP (the bridge, a fetch from this process) with automatic turns on and off,
 * 1,000 dependent tasks and 10,000 reports (test reports by the assignee, so a delivered task's stale ones owe it a
 * re-verification turn). The member has a model (the scripted model server answers at once), so its flag and
 * re-verification turns are queued and run. Target: on ÷ off ≤ 1.2×. Before each timed edit the loop is let
 * settle (the turns of the previous edit, its slices of scanning), so each edit is timed from a quiet loop.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { startBridge } from '../electron/main/transport/bridge'
import { initRepo } from '../test/fixtures/core'
import { startModelServer } from '../test/fixtures/model-server'
import { seed } from './p1-edit'
import { median, ms, verdict } from './util'

const TASKS = 1_000
const REPORTS = 10_000
const RUNS = 7
const TARGET = 1.2
const TOKEN = 'bench-auto-turns-token'

/** Resolves once the loop has had no turn longer than 5 ms for `quietMs` (the previous edit's work is done). */
async function quiet(quietMs = 300, maxMs = 20_000): Promise<void> {
  const start = performance.now()
  let since = performance.now()
  let last = performance.now()
  while (performance.now() - since < quietMs && performance.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 1))
    const t = performance.now()
    if (t - last > 6) since = t
    last = t
  }
}

export async function autoTurnsHttp(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-auto-'))
  const server = await startModelServer({ defaultReply: { text: 'Re-verified; nothing to change.' } })
  const core = createCore({ dataDir: join(root, 'data'), provider: { maxRetries: 0 } })
  const bridge = await startBridge({ core, port: 0, token: TOKEN })
  const notes: string[] = []
  try {
    const run = async (autoTurns: boolean) => {
      const repo = join(root, autoTurns ? 'on' : 'off')
      mkdirSync(repo)
      initRepo(repo)
      const ws = await core.invoke('workspaces.open', { repoPath: repo, isolation: 'shared' })
      await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns })
      const provider = {
        kind: 'openai' as const,
        model: 'gpt-bench',
        baseURL: server.openaiBaseURL,
        apiKey: 'sk-bench',
      }
      await core.invoke('members.create', {
        workspaceId: ws.id,
        name: 'Tess',
        role: 'tester',
        provider,
        approval: 'auto',
      })
      const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' })
      const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'DB', statement: 'SQLite' })
      seed(core.harness.ctx(ws.id), d, [d, other], TASKS, REPORTS, 3)
      let version = d.version
      const edit = async (statement: string) => {
        const t0 = performance.now()
        const res = await fetch(`http://127.0.0.1:${bridge.port}/api/decisions.update`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decisionId: d.id, expectedVersion: version, statement }),
        })
        const body = (await res.json()) as { ok: boolean }
        if (!body.ok) throw new Error(`decisions.update: ${JSON.stringify(body)}`)
        version++
        return performance.now() - t0
      }
      // Each edit finds the member idle with nothing queued (its turn for the previous edit done), on a quiet loop.
      const settled = async () => {
        for (;;) {
          await quiet()
          const s = await core.invoke('sessions.list', { workspaceId: ws.id })
          if (s.every((x) => x.state !== 'running' && x.queued === 0)) return
        }
      }
      const xs: number[] = []
      for (let i = 0; i < RUNS + 1; i++) {
        await settled()
        const t = await edit(i % 2 ? 'A' : 'B')
        if (i > 0) xs.push(t)
      }
      await settled()
      const m = await core.invoke('metrics.get', { workspaceId: ws.id })
      notes.push(
        `autoTurns ${autoTurns ? 'on' : 'off'}: ${m.autoTurns} automatic turns queued or joined, ${server.requests.length} model requests so far`,
      )
      return median(xs)
    }
    const off = await run(false)
    const on = await run(true)
    const ratio = on / off
    console.log(
      `A1  normative edit over HTTP, ${TASKS} dependent tasks, ${REPORTS.toLocaleString()} reports, median of ${RUNS}`,
    )
    console.log(
      `    automatic turns on ${ms(on)}, off ${ms(off)}: ratio ${ratio.toFixed(2)}x (target ≤ ${TARGET}x: ${verdict(ratio <= TARGET)})`,
    )
    console.log(`    (${notes.join('; ')})`)
  } finally {
    await bridge.close()
    await core.close()
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
}
