/**
 * An export download does not stall Concord (issue 32): export.download of a large workspace reads its decisions in
 * pages and builds the zip in slices, written to a file as it goes, so another call made meanwhile is answered before
 * the export has even written its first byte (ordering, not time); the zip is written under a temporary name and
 * renamed once complete, so a Concord killed mid-export leaves no file under the zip's name; and the bridge serves the
 * finished zip once, at the URL the answer gives.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { countDecisions } from '../../electron/main/export/snapshot'
import type { Bridge } from '../../electron/main/transport/bridge'
import type { Workspace } from '../../shared/schemas'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'
import { bridgeWithUi, callApi } from '../fixtures/http'

const TOKEN = 'export-stream-token-123456'
const DECISIONS = 30_000
const ZIP = 'big-decisions-decisions-madr.zip'

let t: TestCore
let ws: Workspace

beforeEach(async () => {
  t = makeCore()
  initRepo(t.repoDir)
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Big decisions', isolation: 'shared' })
  const { store } = t.core.harness.ctx(ws.id)
  const at = '2025-01-01T00:00:00.000Z'
  store.transaction(() => {
    for (let i = 0; i < DECISIONS; i++)
      store.decisions.insert({
        title: `Decision ${i}`,
        statement: `Statement ${i}.`,
        rationale: '',
        status: 'accepted',
        fingerprint: `fp-${i}`,
        source_message_id: null,
        supersedes: null,
        created_by: null,
        created_at: at,
      })
  })
})
afterEach(async () => {
  await t.cleanup()
})

const downloads = () => join(t.dataDir, 'downloads')

/** Every file under the downloads folder, as `<id>/<name>`. */
function downloadFiles(): string[] {
  if (!existsSync(downloads())) return []
  return readdirSync(downloads()).flatMap((id) => readdirSync(join(downloads(), id)).map((f) => `${id}/${f}`))
}

/** Resolves at the first turn of the event loop where `check` holds, or with false once `until` has settled. */
function firstTurnWhere(check: () => boolean, until: Promise<unknown>): Promise<boolean> {
  let settled = false
  void until.then(
    () => (settled = true),
    () => (settled = true),
  )
  return new Promise((resolve) => {
    const look = () => {
      if (check()) resolve(true)
      else if (settled) resolve(false)
      else setImmediate(look)
    }
    look()
  })
}

describe('export.download of a large workspace', { timeout: 180_000 }, () => {
  let bridge: Bridge
  let base: string
  beforeEach(async () => {
    ;({ bridge, base } = await bridgeWithUi(t, TOKEN))
  })
  afterEach(async () => {
    await bridge.close()
  })

  it('answers another call before it writes its first byte, and never shows a zip under its name unfinished', async () => {
    const order: string[] = []
    const exporting = callApi(base, TOKEN, 'export.download', { workspaceId: ws.id, format: 'madr' }).then((r) => {
      order.push('export.download')
      return r
    })
    // The export is under way: its temporary file exists (empty: it is still reading and numbering the decisions).
    // Whenever a file has the zip's name, its size is noted: it must be the finished zip's.
    const sizesUnderName = new Set<number>()
    const partFile = () => {
      const files = downloadFiles()
      for (const f of files.filter((f) => f.endsWith(`/${ZIP}`)))
        sizesUnderName.add(statSync(join(downloads(), f)).size)
      return files.find((f) => f.endsWith(`/.${ZIP}.part`)) ?? null
    }
    expect(await firstTurnWhere(() => partFile() !== null, exporting)).toBe(true)
    const part = join(downloads(), partFile()!)
    const listed = await callApi(base, TOKEN, 'tasks.list', { workspaceId: ws.id })
    order.push('tasks.list')
    expect(listed.status).toBe(200)
    // Answered while the export was still reading: not one byte of the zip written yet (a synchronous read and
    // render of the whole log answers it only once the zip's bytes start going out).
    const writtenWhenAnswered = existsSync(part) ? statSync(part).size : -1
    expect(writtenWhenAnswered).toBe(0)
    // Watched at every turn until the export answers.
    await firstTurnWhere(() => (partFile(), false), exporting)
    const done = await exporting
    expect(order).toEqual(['tasks.list', 'export.download'])
    expect(done.status).toBe(200)
    const dl = done.body.value as { name: string; url: string; size: number; count: number }
    expect(dl).toMatchObject({ name: ZIP, count: DECISIONS })
    expect([...sizesUnderName].filter((size) => size !== dl.size)).toEqual([])
    expect(existsSync(part)).toBe(false)

    // Served once at its URL, byte for byte the file written; then gone.
    const file = join(t.dataDir, dl.url)
    const bytes = readFileSync(file)
    expect(bytes.length).toBe(dl.size)
    const res = await fetch(`${base}${dl.url}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${ZIP}"`)
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true)
    await firstTurnWhere(() => !existsSync(file), new Promise((r) => setTimeout(r, 5000)))
    expect(existsSync(file)).toBe(false)
    expect((await fetch(`${base}${dl.url}`)).status).toBe(404)
    // A made-up id is not found either, and nothing outside the downloads folder is reachable that way.
    expect((await fetch(`${base}/downloads/${'0'.repeat(32)}/${ZIP}`)).status).toBe(404)
    expect((await fetch(`${base}/downloads/..%2F..%2Fsecrets.json`)).status).toBe(404)
  })
})

describe('DECISIONS.md of a large workspace', { timeout: 180_000 }, () => {
  it('says how many decisions it holds, counted a range of ids at a time with a yield between ranges', async () => {
    const { store } = t.core.harness.ctx(ws.id)
    let yields = 0
    const count = await countDecisions(store, async () => {
      yields++
    })
    expect(count).toBe(DECISIONS)
    expect(yields).toBe(3) // ids 1–10,000, 10,001–20,000, 20,001–30,000
    // The log renders each decision's history: the seeded decisions get their first revision.
    store.transaction(() => {
      for (let id = 1; id <= DECISIONS; id++)
        store.decisions.insertRevision({
          decision_id: id,
          version: 1,
          title: `Decision ${id - 1}`,
          statement: `Statement ${id - 1}.`,
          rationale: '',
          status: 'accepted',
          content_hash: `h-${id}`,
          fingerprint: `fp-${id - 1}`,
          reason: '',
          actor_id: null,
          editorial: 0,
          source_message_id: null,
          created_at: '2025-01-01T00:00:00.000Z',
        })
    })
    const dl = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'markdown' })
    // A stored (uncompressed) zip: the log's text is in its bytes as written.
    const text = readFileSync(join(t.dataDir, dl.url)).toString('utf8')
    expect(text).toContain(`${DECISIONS} decisions. A normative change`)
    expect(text).toContain(`| [D-${DECISIONS}](#d-${DECISIONS}) | Decision ${DECISIONS - 1} |`)
  })
})

describe('a Concord killed mid-export', { timeout: 180_000 }, () => {
  it('leaves no file under the zip’s name: only its temporary file; the next export is unhindered', async () => {
    await t.core.close()
    const root = dirname(t.dataDir)
    t.cleanup = async () => rmSync(root, { recursive: true, force: true })
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/fixtures/core-call-worker.ts',
        JSON.stringify({
          dataDir: t.dataDir,
          method: 'export.download',
          params: { workspaceId: ws.id, format: 'madr' },
        }),
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
    // Killed once the zip has some of its bytes on disk (mid-write), not before it started nor after it finished.
    const midWrite = () => downloadFiles().some((f) => statSync(join(downloads(), f)).size > 0)
    const caught = await firstTurnWhere(() => {
      try {
        return midWrite()
      } catch {
        return false // the file renamed between the listing and the stat
      }
    }, exited)
    expect(caught, `the export finished before it could be killed: ${out}`).toBe(true)
    child.kill('SIGKILL')
    await exited
    expect(out).toBe('')
    const left = downloadFiles()
    expect(left.filter((f) => f.endsWith(`/${ZIP}`))).toEqual([])
    expect(left.filter((f) => f.endsWith(`/.${ZIP}.part`))).toHaveLength(1)

    const again = createCore({ dataDir: t.dataDir })
    try {
      const dl = await again.invoke('export.download', { workspaceId: ws.id, format: 'madr' })
      expect(dl.count).toBe(DECISIONS)
      expect(statSync(join(t.dataDir, dl.url)).size).toBe(dl.size)
    } finally {
      await again.close()
    }
  })
})
