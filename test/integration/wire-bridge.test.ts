import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startBridge, type Bridge } from '../../electron/main/transport/bridge'
import { createBridgeClient, type ClientApi } from '../../renderer/src/api/bridge-client'
import type { EventEnvelope } from '../../shared/contract'
import { makeCore, type TestCore } from '../fixtures/core'

// The browser client and the bridge share one codec (shared/wire.ts): this drives both for real.
let t: TestCore
let bridge: Bridge
let client: ClientApi

beforeEach(async () => {
  t = makeCore()
  bridge = await startBridge({ core: t.core, port: 0, token: 'tok' })
  client = createBridgeClient({
    origin: `http://127.0.0.1:${bridge.port}`,
    token: 'tok',
    WebSocket: WebSocket as never,
  })
})
afterEach(async () => {
  client.close()
  await bridge.close()
  await t.cleanup()
})

describe('browser client ↔ bridge over the shared wire codec', () => {
  it('gets values, typed refusals and events', async () => {
    const open = new Promise<void>((resolve) => client.onConnection((s) => s === 'open' && resolve()))
    const events: EventEnvelope[] = []
    const opened = new Promise<EventEnvelope>((resolve) =>
      client.onEvent((e) => {
        events.push(e)
        if (e.event === 'workspace.opened') resolve(e)
      }),
    )
    await open
    const workspace = await client.call('workspaces.open', { repoPath: t.repoDir })
    expect((await opened).payload).toMatchObject({ workspace: { id: workspace.id } })
    expect(await client.call('workspaces.list', {})).toEqual([expect.objectContaining({ id: workspace.id })])
    await expect(client.call('workspaces.settings', { workspaceId: 'w99999999' })).rejects.toMatchObject({
      name: 'ApiCallError',
      code: 'not_found',
    })
    await expect(client.call('workspaces.open', { repoPath: '' })).rejects.toMatchObject({ code: 'invalid_params' })
    const stranger = createBridgeClient({
      origin: `http://127.0.0.1:${bridge.port}`,
      token: 'wrong',
      WebSocket: WebSocket as never,
    })
    await expect(stranger.call('workspaces.list', {})).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('token'),
    })
    stranger.close()
  })
})
