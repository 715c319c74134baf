import { mkdirSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Bridge } from '../../electron/main/transport/bridge'
import { makeCore, type TestCore } from '../fixtures/core'
import { bridgeWithUi } from '../fixtures/http'

let t: TestCore
let bridge: Bridge
let base: string
const TOKEN = 'test-token-123'

beforeEach(async () => {
  t = makeCore()
  ;({ bridge, base } = await bridgeWithUi(t, TOKEN, {
    'index.html': '<!doctype html><title>Concord UI</title>',
    'assets/app.js': 'console.log(1)',
  }))
})
afterEach(async () => {
  await bridge.close()
  await t.cleanup()
})

async function api(method: string, body: unknown, token: string | null = TOKEN, raw = false) {
  const res = await fetch(`${base}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: raw ? (body as string) : JSON.stringify(body),
  })
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; value?: any; error?: { code: string; message: string } },
  }
}

/** A request with headers fetch will not let us forge (Host) or paths it would normalise. */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: bridge.port, path, method: 'GET', headers }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function openSocket(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${bridge.port}/events${query}`, { headers })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
}

describe('browser bridge', () => {
  it('prints a token URL and answers {ok, value} for a valid call', async () => {
    expect(bridge.url).toBe(`${base}/?token=${TOKEN}`)
    const res = await api('workspaces.open', { repoPath: t.repoDir })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true, value: expect.objectContaining({ repoPath: expect.any(String) }) })
  })

  it('refuses a missing or wrong token with 401', async () => {
    for (const token of [null, 'wrong', TOKEN + 'x']) {
      const res = await api('workspaces.list', {}, token)
      expect(res.status).toBe(401)
      expect(res.body.error?.code).toBe('unauthorized')
    }
  })

  it('maps errors to 4xx with a stable code', async () => {
    const bad = await api('workspaces.open', '{not json', TOKEN, true)
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'invalid_params'])
    const arr = await api('workspaces.list', [])
    expect([arr.status, arr.body.error?.code]).toEqual([400, 'invalid_params'])
    const unknown = await api('nope.nothing', {})
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'unknown_method'])
    const ws = (await api('workspaces.open', { repoPath: t.repoDir })).body.value
    const d = (await api('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'REST' })).body.value
    await api('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'GraphQL' })
    const conflict = await api('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'gRPC' })
    expect([conflict.status, conflict.body.error?.code]).toEqual([409, 'version_conflict'])
    const get = await fetch(`${base}/api/workspaces.list`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(get.status).toBe(405)
  })

  it('refuses requests addressed to another host name (DNS rebinding)', async () => {
    const res = await rawGet('/', { host: 'evil.example:80' })
    expect(res.status).toBe(403)
  })

  it('serves the renderer with a strict CSP and never a file outside its folder', async () => {
    const index = await rawGet('/')
    expect(index.status).toBe(200)
    expect(index.body).toContain('Concord UI')
    expect(String(index.headers['content-security-policy'])).toContain("script-src 'self'")
    expect(index.headers['x-frame-options']).toBe('DENY')
    expect((await rawGet('/assets/app.js')).body).toBe('console.log(1)')
    const dotdot = await rawGet('/%2e%2e/%2e%2e/%2e%2e/etc/passwd')
    expect(dotdot.body).not.toContain('root:')
    expect(dotdot.body).toContain('Concord UI') // normalised to /etc/passwd inside the folder: the app shell
    expect((await rawGet('/assets/..%2f..%2f..%2fetc%2fpasswd')).body).not.toContain('root:')
    expect((await rawGet('/assets/missing.js')).status).toBe(404)
    expect((await rawGet('/tasks/board')).body).toContain('Concord UI')
  })

  it('streams events over a token-guarded WebSocket, filtered by workspace', async () => {
    await expect(openSocket('')).rejects.toThrow(/401/)
    await expect(openSocket('?token=wrong')).rejects.toThrow(/401/)
    await expect(openSocket(`?token=${TOKEN}`, { origin: 'http://evil.example' })).rejects.toThrow(/401/)
    const a = (await api('workspaces.open', { repoPath: t.repoDir })).body.value
    mkdirSync(join(t.repoDir, 'other'))
    const b = (await api('workspaces.open', { repoPath: join(t.repoDir, 'other') })).body.value
    const socket = await openSocket(`?token=${TOKEN}&workspaceId=${a.id}`)
    const received: { event: string; payload: { workspaceId: string } }[] = []
    const got = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        received.push(JSON.parse((data as Buffer).toString()))
        if (received.some((e) => e.event === 'decision.changed')) resolve()
      }),
    )
    await api('decisions.create', { workspaceId: b.id, title: 'Other', statement: 'x' })
    const d = (await api('decisions.create', { workspaceId: a.id, title: 'API', statement: 'REST' })).body.value
    await api('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'GraphQL' })
    await got
    socket.close()
    expect(received.map((e) => e.event)).toEqual(['decision.created', 'decision.changed'])
    expect(received.every((e) => e.payload.workspaceId === a.id)).toBe(true)
  })
})
