import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

let t: TestCore
let ws: Workspace
const logFile = () => join(t.dataDir, 'logs', 'concord.log')
const records = (file = logFile()) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>)

async function start(options: Parameters<typeof makeCore>[0] = {}) {
  t = makeCore(options)
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Shop' })
}

beforeEach(() => {
  // The console copy is for whoever runs `concord serve`; these tests read the file.
  vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(async () => {
  vi.restoreAllMocks()
  await t.cleanup()
})

describe('the Concord log', () => {
  it('exists from the start, owner-only, in the data folder', async () => {
    await start()
    expect(existsSync(logFile())).toBe(true)
    expect(statSync(logFile()).mode & 0o777).toBe(0o600)
    expect(statSync(join(t.dataDir, 'logs')).mode & 0o777).toBe(0o700)
  })

  it('records an internal error of the real core with its method and workspace, and the API error names the file relative to the data folder', async () => {
    await start()
    t.core.handlers['decisions.list'] = () => {
      throw new TypeError('a bug in decisions.list')
    }
    const err = await rejectsWith(t.core.invoke('decisions.list', { workspaceId: ws.id }), 'internal')
    expect(err.message).toBe('internal error: see logs/concord.log in the data folder')
    expect(err.message).not.toContain(t.dataDir)
    expect(existsSync(join(t.dataDir, 'logs', 'concord.log'))).toBe(true)

    const [rec] = records().filter((r) => r.msg === 'internal error')
    expect(rec).toMatchObject({
      level: 50,
      method: 'decisions.list',
      workspaceId: ws.id,
      workspace: `workspace "Shop" (${ws.id})`,
      err: { type: 'TypeError', message: 'a bug in decisions.list' },
    })
    expect(rec!.err.stack).toMatch(/TypeError: a bug in decisions.list\n\s+at /)
    expect(typeof rec!.time).toBe('number')
  })

  it('records a storage fault with its code, method and workspace', async () => {
    await start()
    t.core.handlers['tasks.list'] = () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
    }
    await rejectsWith(t.core.invoke('tasks.list', { workspaceId: ws.id }), 'io_error')
    expect(records().find((r) => r.msg === 'storage fault')).toMatchObject({
      level: 40,
      code: 'io_error',
      method: 'tasks.list',
      workspaceId: ws.id,
    })
  })

  it('never writes a secret: keys, tokens, *_API_KEY values and keys inside error messages are redacted', async () => {
    await start()
    const secrets = {
      apiKey: 'sk-live-SECRET-0001',
      OPENAI_API_KEY: 'sk-proj-SECRET-0002',
      ANTHROPIC_API_KEY: 'sk-ant-SECRET-0003',
      authorization: 'Bearer tok-SECRET-0004',
      token: 'tok-SECRET-0005',
      password: 'pw-SECRET-0006',
      GITHUB_TOKEN: 'ghp_SECRET0007',
    }
    t.core.log.error(
      {
        provider: {
          kind: 'openai',
          apiKey: secrets.apiKey,
          baseURL: 'https://alice:pw-SECRET-0008@llm.example.com/v1',
        },
        env: {
          OPENAI_API_KEY: secrets.OPENAI_API_KEY,
          ANTHROPIC_API_KEY: secrets.ANTHROPIC_API_KEY,
          GITHUB_TOKEN: secrets.GITHUB_TOKEN,
          PATH: '/usr/bin',
        },
        request: {
          headers: { authorization: secrets.authorization, 'x-api-key': 'SECRET-0009', accept: 'application/json' },
        },
        deep: { a: { b: { token: secrets.token, password: secrets.password } } },
        usage: { tokens: 1234, inputTokens: 1000 },
        err: new Error('401 Incorrect API key provided: sk-live-SECRET-0010'),
      },
      'provider call failed with OPENAI_API_KEY=sk-proj-SECRET-0011 and header Bearer tok-SECRET-0012',
    )
    t.core.handlers['members.list'] = () => {
      throw Object.assign(new Error('request failed: authorization: Bearer tok-SECRET-0013'), {
        apiKey: 'sk-live-SECRET-0014',
      })
    }
    await rejectsWith(t.core.invoke('members.list', { workspaceId: ws.id }), 'internal')

    const text = readFileSync(logFile(), 'utf8')
    expect(text).not.toMatch(/SECRET/)
    const [first, second] = records()
    expect(first!.env).toEqual({
      OPENAI_API_KEY: '[redacted]',
      ANTHROPIC_API_KEY: '[redacted]',
      GITHUB_TOKEN: '[redacted]',
      PATH: '/usr/bin',
    })
    expect(first!.request.headers).toEqual({
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      accept: 'application/json',
    })
    expect(first!.provider).toEqual({
      kind: 'openai',
      apiKey: '[redacted]',
      baseURL: 'https://[redacted]@llm.example.com/v1',
    })
    expect(first!.deep.a.b).toEqual({ token: '[redacted]', password: '[redacted]' })
    // Token counts are not tokens.
    expect(first!.usage).toEqual({ tokens: 1234, inputTokens: 1000 })
    expect(first!.msg).toBe('provider call failed with OPENAI_API_KEY=[redacted] and header Bearer [redacted]')
    expect(second).toMatchObject({ method: 'members.list', err: { apiKey: '[redacted]' } })
  })

  it('rotates past the size limit and keeps only the newest files', async () => {
    await start({ log: { maxBytes: 4096, keep: 2 } })
    for (let n = 0; n < 60; n++) t.core.log.info({ n, pad: 'x'.repeat(200) }, 'filler')
    t.core.handlers['decisions.list'] = () => {
      throw new TypeError('after rotation')
    }
    await rejectsWith(t.core.invoke('decisions.list', { workspaceId: ws.id }), 'internal')

    const dir = join(t.dataDir, 'logs')
    expect(readdirSync(dir).sort()).toEqual(['concord.log', 'concord.log.1', 'concord.log.2'])
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(4096)
    // Oldest first across the kept files, no line split or repeated; the first lines were dropped.
    const kept = [join(dir, 'concord.log.2'), join(dir, 'concord.log.1'), logFile()].flatMap((f) => records(f))
    const ns = kept.filter((r) => r.msg === 'filler').map((r) => r.n)
    expect(ns.length).toBeLessThan(60)
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => 60 - ns.length + i))
    expect(kept[kept.length - 1]).toMatchObject({
      msg: 'internal error',
      method: 'decisions.list',
      err: { message: 'after rotation' },
    })
    // The error message still names the file that holds the error.
    expect(records().some((r) => r.msg === 'internal error')).toBe(true)
  })
})
