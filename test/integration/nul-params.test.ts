/**
 * A NUL character in a path or a search query is the caller's mistake (or an attack on a C string): the bridge
 * answers 400 invalid_params naming the field, never 500.
 */
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Bridge } from '../../electron/main/transport/bridge'
import { makeCore, type TestCore } from '../fixtures/core'
import { bridgeWithUi, callApi } from '../fixtures/http'

let t: TestCore
let bridge: Bridge
const TOKEN = 'nul-test-token-123456'

beforeEach(async () => {
  t = makeCore()
  ;({ bridge } = await bridgeWithUi(t, TOKEN))
})
afterEach(async () => {
  await bridge.close()
  await t.cleanup()
})

const api = (method: string, params: unknown) => callApi(`http://127.0.0.1:${bridge.port}`, TOKEN, method, params)

describe('a NUL character in a path or query', () => {
  it('is 400 invalid_params naming the field, for every path and query field', async () => {
    const opened = await api('workspaces.open', { repoPath: t.repoDir })
    expect(opened.status).toBe(200)
    const workspaceId = (opened.body.value as { id: string }).id
    // With a member, the search reaches SQLite's full-text index (which fails on a NUL: 500 before the fix).
    expect((await api('members.create', { workspaceId, name: 'Ada', role: 'lead' })).status).toBe(200)
    const calls: [string, unknown, string][] = [
      ['sessions.search', { workspaceId, query: 'a\0b' }, 'query'],
      ['search.records', { workspaceId, query: 'a\0b' }, 'query'],
      ['export.decisionLog', { workspaceId, format: 'markdown', outDir: `${t.repoDir}/out\0side` }, 'outDir'],
      ['export.decisionLog', { workspaceId, format: 'madr', outDir: 'docs\0' }, 'outDir'],
      ['workspaces.open', { repoPath: `${t.repoDir}\0x` }, 'repoPath'],
      ['folders.browse', { path: `${t.repoDir}\0` }, 'path'],
      ['import.workspace', { path: `${t.repoDir}/x.json\0`, repoPath: t.repoDir }, 'path'],
      ['import.workspace', { path: join(t.repoDir, 'x.json'), repoPath: `${t.repoDir}\0` }, 'repoPath'],
    ]
    for (const [method, params, field] of calls) {
      const res = await api(method, params)
      expect({ method, field, status: res.status, code: res.body.error?.code }).toEqual({
        method,
        field,
        status: 400,
        code: 'invalid_params',
      })
      expect(res.body.error?.message).toContain(field)
    }
    // A query without NUL still works.
    expect((await api('sessions.search', { workspaceId, query: 'anything' })).status).toBe(200)
  })
})
