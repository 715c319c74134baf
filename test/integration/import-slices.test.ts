/**
 * A large import does not stop the server (issue 19): import.workspace reads, checks and inserts in slices, so
 * other calls over the bridge are answered while it runs; the new workspace is invisible until it is complete,
 * and an import that fails after some of its slices went in leaves nothing behind.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { importWorkspace } from '../../electron/main/export/import'
import { Slicer } from '../../electron/main/export/sliced'
import type { Bridge } from '../../electron/main/transport/bridge'
import type { Workspace } from '../../shared/schemas'
import { makeCore, type TestCore } from '../fixtures/core'
import { bridgeWithUi, callApi } from '../fixtures/http'

const TOKEN = 'import-slices-token-123456'
const DECISIONS = 5000

let t: TestCore
let bridge: Bridge
let ws: Workspace
let decisionId: string
let bigFile: string

/** An export of `count` decisions (copies of one real decision, each with its own id), written to a file. */
async function bigExport(count: number): Promise<string> {
  const out = join(t.repoDir, '..', 'source-export')
  await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json', outDir: out })
  const doc = JSON.parse(readFileSync(join(out, 'concord-export.json'), 'utf8')) as {
    decisions: { id: string }[]
    counters: Record<string, number>
  }
  const d0 = doc.decisions[0]
  doc.decisions = Array.from({ length: count }, (_, i) => ({ ...d0, id: `D-${i + 1}` }))
  const file = join(t.repoDir, '..', `big-${count}.json`)
  writeFileSync(file, JSON.stringify(doc, null, 2))
  return file
}

beforeEach(async () => {
  t = makeCore()
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Shop' })
  decisionId = (
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Storage',
      statement: 'Store orders in SQLite.',
    })
  ).id
  ;({ bridge } = await bridgeWithUi(t, TOKEN))
  bigFile = await bigExport(DECISIONS)
})
afterEach(async () => {
  await bridge.close()
  await t.cleanup()
})

const api = (method: string, params: unknown) => callApi(`http://127.0.0.1:${bridge.port}`, TOKEN, method, params)

/** Calls workspaces.list and decisions.get one after the other until `until` settles; what each answered. */
async function callsDuring(until: Promise<unknown>): Promise<{ answered: number; listed: string[][] }> {
  let settled = false
  void until.finally(() => (settled = true)).catch(() => undefined)
  let answered = 0
  const listed: string[][] = []
  while (!settled) {
    const list = await api('workspaces.list', {})
    const got = await api('decisions.get', { decisionId })
    expect([list.status, got.status]).toEqual([200, 200])
    if (settled) break
    answered += 2
    listed.push((list.body.value as Workspace[]).map((w) => w.repoPath))
  }
  return { answered, listed }
}

describe('import.workspace of a large export', { timeout: 120_000 }, () => {
  it('answers other calls while it runs, shows the workspace only when complete, and restores it identically', async () => {
    const repo = join(t.repoDir, '..', 'restored')
    mkdirSync(repo)
    const importing = api('import.workspace', { path: bigFile, repoPath: repo, name: 'Restored' })
    // Turns of the event loop while the import's rows go in: its new file exists, the registry does not know it yet.
    const known = new Set(readdirSync(join(t.dataDir, 'workspaces')))
    let settled = false
    void importing.finally(() => (settled = true))
    let turnsWhileInserting = 0
    const watch = () => {
      const fresh = readdirSync(join(t.dataDir, 'workspaces')).filter((f) => f.endsWith('.sqlite') && !known.has(f))
      if (fresh.some((f) => !t.core.harness.registry.byId(f.slice(0, -'.sqlite'.length)))) turnsWhileInserting++
      if (!settled) setImmediate(watch)
    }
    setImmediate(watch)
    const { answered, listed } = await callsDuring(importing)
    const done = await importing
    expect(done.status).toBe(200)
    // Served while the import ran (before the fix, every call waited for the whole import: 0), and the event loop
    // turned between the import's transactions.
    expect(answered).toBeGreaterThan(0)
    expect(turnsWhileInserting).toBeGreaterThan(1)
    // Never visible half-imported.
    for (const paths of listed) expect(paths).not.toContain(done.body.value.repoPath)

    const imported = done.body.value as Workspace
    const decisions = await t.core.invoke('decisions.list', { workspaceId: imported.id })
    expect(decisions).toHaveLength(DECISIONS)
    // Exported again it is the same document (but for when it was exported and the name given on import).
    const again = await t.core.invoke('export.decisionLog', {
      workspaceId: imported.id,
      format: 'json',
      outDir: join(t.repoDir, '..', 'again'),
    })
    const strip = (text: string) => {
      const { exportedAt: _a, workspace: _w, ...rest } = JSON.parse(text) as Record<string, unknown>
      return rest
    }
    expect(strip(readFileSync(again.files[0]!, 'utf8'))).toEqual(strip(readFileSync(bigFile, 'utf8')))
  })

  it('goes in as several transactions', async () => {
    const repo = join(t.repoDir, '..', 'sliced')
    mkdirSync(repo)
    // A budget of 0 ms: every step is its own slice, whatever the machine's speed.
    const slicer = new Slicer(0)
    const w = await importWorkspace(
      { harness: t.core.harness, openStore: (file) => t.core.harness.openStore(file) },
      { path: bigFile, repoPath: repo },
      slicer,
    )
    expect(slicer.pauses).toBeGreaterThan(DECISIONS)
    expect(await t.core.invoke('decisions.list', { workspaceId: w.id })).toHaveLength(DECISIONS)
  })

  it('a failure after slices went in leaves no workspace and no file', async () => {
    const repo = join(t.repoDir, '..', 'contested')
    mkdirSync(repo)
    const files = () => readdirSync(join(t.dataDir, 'workspaces')).sort()
    const before = files()
    const slicer = new Slicer(0)
    const importing = importWorkspace(
      { harness: t.core.harness, openStore: (file) => t.core.harness.openStore(file) },
      { path: bigFile, repoPath: repo },
      slicer,
    ).then(
      () => null,
      (err: unknown) => err as { code: string; message: string },
    )
    // Once its file exists its rows are going in: then the folder gets a workspace of its own (served between slices).
    while (!files().some((f) => !before.includes(f) && f.endsWith('.sqlite'))) await new Promise((r) => setImmediate(r))
    const pausesBefore = slicer.pauses
    const opened = await t.core.invoke('workspaces.open', { repoPath: repo, name: 'Opened meanwhile' })
    const failed = await importing
    expect(slicer.pauses).toBeGreaterThan(pausesBefore)
    expect(failed?.code).toBe('invalid_params')
    expect(failed?.message).toContain('got a Concord workspace while importing; nothing was changed')
    const list = (await api('workspaces.list', {})).body.value as Workspace[]
    expect(list.map((w) => w.name).sort()).toEqual(['Opened meanwhile', 'Shop'])
    // Only the opened workspace's file was added: nothing of the import is left.
    const added = files().filter((f) => !before.includes(f))
    expect(added.filter((f) => f.endsWith('.sqlite'))).toEqual([`${opened.id}.sqlite`])
    expect(added.every((f) => f.startsWith(opened.id))).toBe(true)
  })
})
