/**
 * Issue 32: an export download does not stall Concord. `export.download` (madr, markdown, then json) of a workspace
 * of 100,000 decisions, each with its first revision, through the bridge: the time until the answer, and the longest
 * stall of the server's event loop meanwhile (perf_hooks' event-loop delay, 1 ms resolution; target ≤ 50 ms). Side by
 * side, a bare write of the same bytes (the zip it wrote, 1 MiB at a time with fs/promises) under the same probe,
 * and the served zip fetched back. Before the stream the export held the loop 5.4 s and then failed past 65,535 files.
 * Beside the stall, the longest garbage-collection pause: on a busy machine the stall also counts time the process
 * was not scheduled at all; the GC pause is the part the export's own allocations cause.
 * `npx tsx bench/export-stream.ts [decisions]`
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { createCore } from '../electron/main/core'
import { startBridge } from '../electron/main/transport/bridge'
import type { ExportDownload } from '../shared/schemas'
import { collectGarbage, ms, verdict } from './util'

const TARGET_STALL_MS = 50
const TOKEN = 'bench-export-stream-token'

/** fn's time, the longest event-loop stall while it ran, and its longest garbage-collection pause. */
async function probed<T>(fn: () => Promise<T>): Promise<{ value: T; total: number; stall: number; gc: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 })
  let gc = 0
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc = Math.max(gc, e.duration)
  })
  gcs.observe({ entryTypes: ['gc'] })
  h.enable()
  const t0 = performance.now()
  const value = await fn()
  const total = performance.now() - t0
  h.disable()
  gcs.disconnect()
  return { value, total, stall: h.max / 1e6, gc }
}

export async function exportStream(count = 100_000): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-export-stream-'))
  const staticDir = join(root, 'static')
  mkdirSync(staticDir)
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Concord</title>')
  const core = createCore({ dataDir: join(root, 'data') })
  const bridge = await startBridge({ core, port: 0, token: TOKEN, staticDir })
  const base = `http://127.0.0.1:${bridge.port}`
  try {
    const repo = join(root, 'repo')
    mkdirSync(repo)
    execFileSync('git', ['init', '-q', repo])
    const ws = await core.invoke('workspaces.open', { repoPath: repo, name: 'Bench' })
    const { store } = core.harness.ctx(ws.id)
    const at = '2026-01-01T00:00:00.000Z'
    store.transaction(() => {
      for (let i = 0; i < count; i++) {
        const row = {
          title: `Decision ${i}`,
          statement: `Statement ${i}: the service answers within ${i % 500} ms.`,
          rationale: 'Measured.',
          status: 'accepted' as const,
          fingerprint: `fp-${i}`,
          source_message_id: null,
        }
        const id = store.decisions.insert({ ...row, supersedes: null, created_by: null, created_at: at })
        store.decisions.insertRevision({
          ...row,
          decision_id: id,
          version: 1,
          content_hash: `h-${i}`,
          reason: '',
          actor_id: null,
          editorial: 0,
          created_at: at,
        })
      }
    })

    // The seeding's own garbage (100,000 rows built in one go) is collected before anything is timed: otherwise the
    // collector's pause after it (30–35 ms here) lands in the first probe and counts against the export.
    collectGarbage()
    for (const format of ['madr', 'markdown', 'json'] as const) {
      const exported = await probed(async () => {
        const res = await fetch(`${base}/api/export.download`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ workspaceId: ws.id, format }),
        })
        const body = (await res.json()) as { ok: boolean; value?: ExportDownload; error?: unknown }
        if (!body.ok) throw new Error(JSON.stringify(body.error))
        return body.value!
      })
      const dl = exported.value
      const bytes = readFileSync(join(core.harness.dataDir, dl.url))

      // The same bytes written bare: what writing the file costs on this machine anyway.
      const bare = await probed(async () => {
        const file = await open(join(root, 'bare.zip'), 'w')
        try {
          for (let at = 0; at < bytes.length; at += 1024 * 1024) await file.write(bytes.subarray(at, at + 1024 * 1024))
        } finally {
          await file.close()
        }
      })
      const served = await probed(async () => {
        const res = await fetch(`${base}${dl.url}`)
        return Buffer.from(await res.arrayBuffer())
      })
      if (!served.value.equals(bytes)) throw new Error('the served zip is not the zip written')

      console.log(
        `Export stream: export.download of ${count.toLocaleString('en')} decisions (${format}, ${dl.count.toLocaleString('en')} file${dl.count === 1 ? '' : 's'}, ${(dl.size / 1e6).toFixed(1)} MB zip) in ${ms(exported.total)}, the longest event-loop stall ${ms(exported.stall)} (target ≤ ${TARGET_STALL_MS} ms) ${verdict(exported.stall <= TARGET_STALL_MS)}, the longest GC pause ${ms(exported.gc)}; a bare write of the same bytes: ${ms(bare.total)}, longest stall ${ms(bare.stall)}; served back over the bridge: ${ms(served.total)}, longest stall ${ms(served.stall)}`,
      )
    }
  } finally {
    await bridge.close()
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await exportStream(Number(process.argv[2] ?? 100_000))
