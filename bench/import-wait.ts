/**
 * Issue 19: a large import does not stop the server. Imports a 100,000-decision export through the bridge and,
 * meanwhile, calls workspaces.list and decisions.get over HTTP one after the other: prints the longest time one of
 * those calls took (target: under 100 ms; before the import went in slices, every call waited for the whole
 * import, about 4 s). `npx tsx bench/import-wait.ts [decisions]`
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import { startBridge } from '../electron/main/transport/bridge'
import { median, ms, verdict } from './util'

const TARGET_MS = 100
const TOKEN = 'bench-import-wait-token'

export async function importWait(count = 100_000): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-import-wait-'))
  const staticDir = join(root, 'static')
  mkdirSync(staticDir)
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Concord</title>')
  const core = createCore({ dataDir: join(root, 'data') })
  const bridge = await startBridge({ core, port: 0, token: TOKEN, staticDir })
  const api = async (method: string, params: unknown) => {
    const res = await fetch(`http://127.0.0.1:${bridge.port}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(params),
    })
    const body = (await res.json()) as { ok: boolean; value?: unknown; error?: unknown }
    if (!body.ok) throw new Error(JSON.stringify(body.error))
    return body.value
  }
  try {
    const repo = join(root, 'repo')
    mkdirSync(repo)
    const ws = await core.invoke('workspaces.open', { repoPath: repo })
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Use SQLite',
      statement: 'Store orders in SQLite in WAL mode.',
      rationale: 'One file, no server.',
    })
    const out = join(root, 'out')
    await core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json', outDir: out })
    const doc = JSON.parse(readFileSync(join(out, 'concord-export.json'), 'utf8')) as { decisions: { id: string }[] }
    const d0 = doc.decisions[0]
    doc.decisions = Array.from({ length: count }, (_, i) => ({ ...d0, id: `D-${i + 1}` }))
    const file = join(root, 'big.json')
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const size = readFileSync(file).length

    // The same calls with no import running: what this machine takes anyway (a loaded machine shows here).
    const idle: number[] = []
    for (let i = 0; i < 200; i++) {
      const s = performance.now()
      await api(i % 2 ? 'decisions.get' : 'workspaces.list', i % 2 ? { decisionId: d.id } : {})
      idle.push(performance.now() - s)
    }
    const target = join(root, 'restored')
    mkdirSync(target)
    const t0 = performance.now()
    let done = false
    const importing = api('import.workspace', { path: file, repoPath: target }).finally(() => (done = true))
    const waits: number[] = []
    while (!done) {
      for (const [method, params] of [
        ['workspaces.list', {}],
        ['decisions.get', { decisionId: d.id }],
      ] as const) {
        // A call started while the import runs counts, even if it is answered only after the import.
        const during = !done
        const s = performance.now()
        await api(method, params)
        if (during) waits.push(performance.now() - s)
      }
    }
    await importing
    const total = performance.now() - t0
    const longest = Math.max(0, ...waits)
    const sorted = [...waits].sort((a, b) => a - b)
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0
    console.log(
      `Import wait: ${count.toLocaleString('en')} decisions (${(size / 1e6).toFixed(0)} MB) imported in ${ms(total)}; ${waits.length} other calls made meanwhile: median ${ms(median(waits))}, p99 ${ms(p99)}, the longest ${ms(longest)} (target < ${TARGET_MS} ms) ${verdict(longest < TARGET_MS && waits.length > 0)}; without an import: median ${ms(median(idle))}, the longest ${ms(Math.max(...idle))}`,
    )
  } finally {
    await bridge.close()
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await importWait(Number(process.argv[2] ?? 100_000))
