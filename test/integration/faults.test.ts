/**
 * Faults have names: storage failures answer with a stable code and name the workspace (never its
 * file's path), the other workspaces keep answering, a damaged registry or secrets file stops the
 * start with what to do, and the bridge answers oversized bodies and malformed URLs without a stack.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCore, type Core } from '../../electron/main/core'
import { startBridge, type Bridge } from '../../electron/main/transport/bridge'
import type { Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'

let root: string
let dataDir: string
let cores: Core[]
let bridges: Bridge[]

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-faults-'))
  dataDir = join(root, 'data')
  cores = []
  bridges = []
})
afterEach(async () => {
  vi.restoreAllMocks()
  for (const b of bridges) await b.close()
  for (const c of cores) await c.close()
  rmSync(root, { recursive: true, force: true })
})

function start(): Core {
  const core = createCore({ dataDir })
  cores.push(core)
  return core
}

async function stop(core: Core): Promise<void> {
  await core.close()
  cores = cores.filter((c) => c !== core)
}

/** Two workspaces, Alpha and Beta, each with one decision. */
async function twoWorkspaces(core: Core): Promise<{ a: Workspace; b: Workspace; aDecision: string }> {
  for (const n of ['alpha', 'beta']) mkdirSync(join(root, n), { recursive: true })
  const a = await core.invoke('workspaces.open', { repoPath: join(root, 'alpha'), name: 'Alpha' })
  const b = await core.invoke('workspaces.open', { repoPath: join(root, 'beta'), name: 'Beta' })
  const d = await core.invoke('decisions.create', { workspaceId: a.id, title: 'API', statement: 'REST' })
  await core.invoke('decisions.create', { workspaceId: b.id, title: 'DB', statement: 'SQLite' })
  return { a, b, aDecision: d.id }
}

/** The storage fault names the workspace by name and id and gives no path of the data folder. */
function expectNamed(err: { message: string }, ws: Workspace): void {
  expect(err.message).toContain(`workspace "${ws.name}" (${ws.id})`)
  expect(err.message).not.toContain(dataDir)
  expect(err.message).not.toContain(root)
}

const wsFile = (ws: Workspace) => join(dataDir, 'workspaces', `${ws.id}.sqlite`)

/** Overwrites bytes of a closed file in place. */
function scribble(file: string, at: number, text: string): void {
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.from(text), 0, text.length, at)
  closeSync(fd)
}

describe('storage faults name the workspace, and the others keep answering', () => {
  it('a workspace file damaged on disk while closed: storage_corrupt (HTTP 500) for it, the other one answers', async () => {
    let core = start()
    const { a, b } = await twoWorkspaces(core)
    await stop(core)
    scribble(wsFile(a), 0, 'this is no SQLite header at all')
    vi.spyOn(console, 'error').mockImplementation(() => {})

    core = start()
    const err = await rejectsWith(core.invoke('decisions.list', { workspaceId: a.id }), 'storage_corrupt')
    expectNamed(err, a)
    expect(err.message).toMatch(/damaged.*restore workspaces\/w[0-9a-f]{8}\.sqlite in the data folder from a backup/)
    expect((await core.invoke('decisions.list', { workspaceId: b.id })).map((d) => d.title)).toEqual(['DB'])
    // Opening its repository again names it too (no workspaceId in those params).
    expectNamed(await rejectsWith(core.invoke('workspaces.open', { repoPath: a.repoPath }), 'storage_corrupt'), a)

    const bridge = await startBridge({ core, port: 0, token: 'faults-test-token' })
    bridges.push(bridge)
    const res = await fetch(`http://127.0.0.1:${bridge.port}/api/tasks.list`, {
      method: 'POST',
      headers: { authorization: 'Bearer faults-test-token' },
      body: JSON.stringify({ workspaceId: a.id }),
    })
    expect(res.status).toBe(500)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('storage_corrupt')
  })

  it('a damaged page inside an open workspace is storage_corrupt too', async () => {
    let core = start()
    const { a, b } = await twoWorkspaces(core)
    for (let i = 0; i < 40; i++)
      await core.invoke('decisions.create', { workspaceId: a.id, title: `D${i}`, statement: 'x'.repeat(2000) })
    await stop(core)
    // Page 3 onwards hold table b-trees; garbage there is found when they are read.
    for (let page = 2; page < 12; page++) scribble(wsFile(a), page * 4096, 'garbage'.repeat(500))
    vi.spyOn(console, 'error').mockImplementation(() => {})
    core = start()
    expectNamed(await rejectsWith(core.invoke('decisions.list', { workspaceId: a.id }), 'storage_corrupt'), a)
    expect(await core.invoke('decisions.list', { workspaceId: b.id })).toHaveLength(1)
  })

  it('a workspace that is full (max_page_count): storage_full, nothing half-saved, the other one answers', async () => {
    const core = start()
    const { a, b } = await twoWorkspaces(core)
    const db = core.harness.ctx(a.id).store.db
    db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`)
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const err = await rejectsWith(
      core.invoke('decisions.create', { workspaceId: a.id, title: 'Big', statement: 'x'.repeat(20_000) }),
      'storage_full',
    )
    expectNamed(err, a)
    expect(err.message).toContain('free space')
    expect(log.mock.calls.flat().join('\n')).not.toMatch(/\n\s+at /)
    expect((await core.invoke('decisions.list', { workspaceId: a.id })).map((d) => d.title)).toEqual(['API'])
    expect(await core.invoke('decisions.create', { workspaceId: b.id, title: 'Other', statement: 'y' })).toMatchObject({
      title: 'Other',
    })
  })

  it('a read-only workspace: storage_readonly, found from an entity id in the params', async () => {
    const core = start()
    const { a, aDecision } = await twoWorkspaces(core)
    core.harness.ctx(a.id).store.db.pragma('query_only = ON')
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const err = await rejectsWith(
      core.invoke('decisions.update', { decisionId: aDecision, expectedVersion: 1, statement: 'GraphQL' }),
      'storage_readonly',
    )
    expectNamed(err, a)
  })

  it('a workspace locked by another process: storage_busy', async () => {
    const core = start()
    const { a, b, aDecision } = await twoWorkspaces(core)
    core.harness.ctx(a.id).store.db.pragma('busy_timeout = 0')
    const other = new Database(wsFile(a))
    try {
      other.exec('BEGIN IMMEDIATE')
      vi.spyOn(console, 'error').mockImplementation(() => {})
      const err = await rejectsWith(
        core.invoke('proposals.create', { decisionId: aDecision, statement: 'gRPC', reason: 'faster' }),
        'storage_busy',
      )
      expectNamed(err, a)
      expect(
        await core.invoke('decisions.create', { workspaceId: b.id, title: 'Still', statement: 'fine' }),
      ).toMatchObject({ title: 'Still' })
    } finally {
      other.close()
    }
  })
})

/** Runs `concord serve` on the data folder and resolves when it exits (or prints its URL: then it is stopped). */
function serve(): Promise<{ code: number | null; out: string; started: boolean }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/cli/concord.ts', 'serve', '--port', '0', '--data-dir', dataDir],
    {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  return new Promise((resolve) => {
    let out = ''
    let started = false
    const onData = (d: Buffer) => {
      out += d.toString()
      if (!started && out.includes('Concord serving on')) {
        started = true
        child.kill('SIGTERM')
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => resolve({ code, out, started }))
  })
}

describe('a damaged registry or secrets file stops the start with what to do', () => {
  it('concord.sqlite that is not a database', async () => {
    await stop(start())
    writeFileSync(join(dataDir, 'concord.sqlite'), 'not a database, just text\n'.repeat(200))
    const registry = join(dataDir, 'concord.sqlite')
    expect(() => createCore({ dataDir })).toThrow(
      expect.objectContaining({
        code: 'storage_corrupt',
        message: expect.stringContaining(`The workspace registry ${registry}`),
      }),
    )
    const run = await serve()
    expect(run.started).toBe(false)
    expect(run.code).not.toBe(0)
    expect(run.out).toContain(registry)
    expect(run.out).toMatch(/restore .* from a backup, or move it aside/)
    expect(run.out).not.toMatch(/\n\s+at /)
  }, 30_000)

  it('secrets.json that is not JSON, without quoting a key from it', async () => {
    await stop(start())
    writeFileSync(join(dataDir, 'secrets.json'), '{"member:w00000000-m1:apiKey": sk-leak-me}', { mode: 0o600 })
    const run = await serve()
    expect(run.started).toBe(false)
    expect(run.code).not.toBe(0)
    expect(run.out).toContain(`The secrets file ${join(dataDir, 'secrets.json')} is not valid JSON`)
    expect(run.out).toContain('Move it aside')
    expect(run.out).not.toContain('sk-leak-me')
    expect(run.out).not.toMatch(/\n\s+at /)
  }, 30_000)
})

describe('the bridge names what it refuses', () => {
  const TOKEN = 'faults-bridge-token'
  let base: string
  let port: number
  let logged: string[]

  beforeEach(async () => {
    const core = start()
    const staticDir = join(root, 'static')
    mkdirSync(staticDir)
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Concord UI</title>')
    const bridge = await startBridge({ core, port: 0, token: TOKEN, maxBodyBytes: 1024, staticDir })
    bridges.push(bridge)
    port = bridge.port
    base = `http://127.0.0.1:${port}`
    logged = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
  })

  /** A raw request: fetch would normalise the path. */
  function raw(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method, headers: { authorization: `Bearer ${TOKEN}` } },
        (res) => {
          let text = ''
          res.on('data', (d: Buffer) => (text += d.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }

  it('a body over the limit: 413 payload_too_large as JSON, no stack in the log', async () => {
    const res = await fetch(`${base}/api/workspaces.list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ pad: 'x'.repeat(5000) }),
    })
    expect(res.status).toBe(413)
    const body = (await res.json()) as { ok: boolean; error: { code: string; message: string } }
    expect(body).toEqual({
      ok: false,
      error: { code: 'payload_too_large', message: expect.stringContaining('1024 bytes') },
    })
    // The limit is for bodies: a small call still works on a new connection.
    expect((await raw('POST', '/api/workspaces.list', '{}')).status).toBe(200)
    expect(logged.join('\n')).not.toMatch(/\n\s+at /)
  })

  it('a malformed URL: 400 invalid_params for the API and the static files, no stack in the log', async () => {
    for (const path of ['/api/%E0%A4%A', '/%E0%A4%A']) {
      const res = await raw(path.startsWith('/api/') ? 'POST' : 'GET', path)
      expect([res.status, JSON.parse(res.body).error.code]).toEqual([400, 'invalid_params'])
    }
    expect(logged).toEqual([])
  })

  it('an internal error is still `internal` with its stack in the log', async () => {
    cores[0]!.handlers['workspaces.list'] = () => {
      throw new TypeError('a bug in a handler')
    }
    const res = await raw('POST', '/api/workspaces.list', '{}')
    expect([res.status, JSON.parse(res.body).error.code]).toEqual([500, 'internal'])
    expect(res.body).not.toContain('a bug in a handler')
    expect(logged.join('\n')).toMatch(/TypeError: a bug in a handler\n\s+at /)
  })
})
