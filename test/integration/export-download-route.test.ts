/**
 * The bridge's download route, `GET /downloads/<id>/<name>` (issue 32): the zip export.download wrote is served once
 * (a second GET, even one made while the first is still being sent, finds nothing; a GET broken off spends it too),
 * not after it expired, only at the exact path the answer gave (the raw path, never a normalised one: `..`, `%2e%2e`,
 * encoded slashes, a folder listing are a clean 404 that serves no file) and only to a request addressed to the
 * loopback name the bridge serves.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Bridge } from '../../electron/main/transport/bridge'
import type { ExportDownload, Workspace } from '../../shared/schemas'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'
import { bridgeWithUi, callApi } from '../fixtures/http'

const TOKEN = 'download-route-token-123456'
const SECRET = 'the-secret-file-content'

let t: TestCore
let ws: Workspace
let bridge: Bridge
let base: string

beforeEach(async () => {
  t = makeCore()
  initRepo(t.repoDir)
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Route', isolation: 'shared' })
  ;({ bridge, base } = await bridgeWithUi(t, TOKEN))
})
afterEach(async () => {
  await bridge.close()
  await t.cleanup()
})

/** Decisions with long statements: a zip of several MB, more than a socket takes before its reader reads. */
function manyDecisions(count: number): void {
  const { store } = t.core.harness.ctx(ws.id)
  const statement = 'A long statement. '.repeat(500)
  store.transaction(() => {
    for (let i = 0; i < count; i++)
      store.decisions.insert({
        title: `Decision ${i}`,
        statement,
        rationale: '',
        status: 'accepted',
        fingerprint: `fp-${i}`,
        source_message_id: null,
        supersedes: null,
        created_by: null,
        created_at: '2025-01-01T00:00:00.000Z',
      })
  })
}

async function download(): Promise<ExportDownload & { id: string; dir: string }> {
  const res = await callApi(base, TOKEN, 'export.download', { workspaceId: ws.id, format: 'madr' })
  expect(res.status).toBe(200)
  const dl = res.body.value as ExportDownload
  const id = dl.url.split('/')[2]!
  return { ...dl, id, dir: join(t.dataDir, 'downloads', id) }
}

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** A GET of `path` exactly as written (fetch would normalise `..` away before sending it). */
function rawGet(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: bridge.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Resolves once `check` holds, looking at every turn of the event loop. */
function eventually(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = () => (check() ? resolve() : setImmediate(look))
    look()
  })
}

function expectCleanNotFound(answer: Answer, path: string): void {
  expect(answer.status, path).toBe(404)
  expect(answer.headers['content-type'], path).toContain('application/json')
  expect(JSON.parse(answer.body.toString('utf8')), path).toMatchObject({ ok: false, error: { code: 'not_found' } })
  expect(answer.body.toString('utf8'), path).not.toContain(SECRET)
}

describe('GET /downloads/<id>/<name>', () => {
  it('serves a download once: a second GET made while the first is still being sent is a clean 404', async () => {
    manyDecisions(1500)
    const dl = await download()
    expect(dl.size).toBeGreaterThan(8 * 1024 * 1024)
    // The first GET: its answer has begun, and its reader reads nothing yet (the server cannot finish sending).
    const first = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: bridge.port, path: dl.url }, (res) => {
        res.pause()
        resolve(res)
      })
      req.on('error', reject)
      req.end()
    })
    expect(first.statusCode).toBe(200)
    expectCleanNotFound(await rawGet(dl.url), 'second GET')
    // Nor does a HEAD find it.
    expect((await rawGet(dl.url, {}, 'HEAD')).status).toBe(404)
    // The first one gets every byte; then the download's folder is gone.
    let received = 0
    first.on('data', (c: Buffer) => (received += c.length))
    await new Promise((resolve) => first.on('end', resolve).resume())
    expect(received).toBe(dl.size)
    await eventually(() => !existsSync(dl.dir))
    expectCleanNotFound(await rawGet(dl.url), 'third GET')
  })

  it('is spent by a GET broken off mid-way: its file goes, and a GET after it is a clean 404', async () => {
    manyDecisions(1500)
    const dl = await download()
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port: bridge.port, path: dl.url }, (res) => {
        expect(res.statusCode).toBe(200)
        res.once('data', () => {
          req.destroy()
          resolve()
        })
      })
      req.on('error', () => undefined)
      req.on('close', () => resolve())
      req.end()
    })
    await eventually(() => !existsSync(dl.dir))
    expectCleanNotFound(await rawGet(dl.url), 'GET after the broken one')
  })

  it('is not served once expired (an hour after it was written), and its folder goes', async () => {
    const dl = await download()
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
    utimesSync(join(dl.dir, dl.name), old, old)
    expectCleanNotFound(await rawGet(dl.url), 'expired')
    expect(existsSync(dl.dir)).toBe(false)
  })

  it('answers a hostile or inexact path with a clean 404 that serves no file, and leaves the download unspent', async () => {
    const dl = await download()
    // Files a path that escaped the route could reach.
    writeFileSync(join(t.dataDir, 'secrets.json'), SECRET)
    writeFileSync(join(t.dataDir, 'downloads', 'secrets.zip'), SECRET)
    mkdirSync(join(t.dataDir, 'downloads', 'a'.repeat(32)))
    writeFileSync(join(t.dataDir, 'downloads', 'a'.repeat(32), 'secrets.zip'), SECRET)
    const paths = [
      '/downloads/',
      `/downloads/${dl.id}`,
      `/downloads/${dl.id}/`,
      `/downloads/${dl.id}/${dl.name}/`,
      `/downloads/${dl.id}//${dl.name}`,
      `/downloads/${dl.id.toUpperCase()}/${dl.name}`,
      `/downloads/${'0'.repeat(32)}/${dl.name}`,
      `/downloads/${dl.id}/.${dl.name}.part`,
      `/downloads/${dl.id}/${dl.name}%00`,
      `/downloads/${dl.id}/../${dl.id}/${dl.name}`,
      `/downloads/${dl.id}/%2e%2e/${dl.id}/${dl.name}`,
      `/downloads/${dl.id}/..%2f${'a'.repeat(32)}%2fsecrets.zip`,
      `/downloads/${dl.id}/..%2F..%2Fsecrets.json`,
      '/downloads/../secrets.json',
      '/downloads/%2e%2e/secrets.zip',
      '/downloads/%2e%2e/%2e%2e/secrets',
      '/downloads/..%2f..%2fsecrets.json',
      `/downloads/${'a'.repeat(32)}/../../secrets.json`,
      `/downloads/${'a'.repeat(32)}/%2e%2e%2fsecrets.zip`,
    ]
    for (const path of paths) expectCleanNotFound(await rawGet(path), path)
    // None of them spent it: the exact path still gets the zip, once.
    const served = await rawGet(dl.url)
    expect(served.status).toBe(200)
    expect(served.body.length).toBe(dl.size)
  })

  it('answers only a request addressed to the loopback name it serves, and listens on 127.0.0.1 only', async () => {
    const dl = await download()
    expect(new URL(bridge.url).hostname).toBe('127.0.0.1')
    for (const host of ['evil.example', `evil.example:${bridge.port}`, `0.0.0.0:${bridge.port}`]) {
      const refused = await rawGet(dl.url, { host })
      expect(refused.status, host).toBe(403)
    }
    expect((await rawGet(dl.url, { host: `localhost:${bridge.port}` })).status).toBe(200)
  })
})
