/**
 * Desktop notifications (issue 22): the desktop app shows Electron's Notification from the main process through
 * `system.notify`, called over the same IPC channel as every method (only our own window may call; the payload is
 * validated by the contract); `concord serve` has no system notifications and says so with a stable code.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron'
import { afterEach, describe, expect, it } from 'vitest'
import { startBridge, type Bridge } from '../../electron/main/transport/bridge'
import { bindIpc } from '../../electron/main/transport/ipc'
import { makeCore, type TestCore } from '../fixtures/core'

let t: TestCore
let bridge: Bridge | undefined

afterEach(async () => {
  await bridge?.close()
  bridge = undefined
  await t?.cleanup()
})

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<unknown>

/** The part of ipcMain bindIpc uses: handlers by channel, invoked as Electron would. */
function ipcHost() {
  const handlers = new Map<string, Handler>()
  const ipcMain = {
    handle: (channel: string, h: Handler) => void handlers.set(channel, h),
    removeHandler: (channel: string) => void handlers.delete(channel),
  } as unknown as IpcMain
  const invoke = (trusted: boolean, method: unknown, params: unknown) =>
    handlers.get('concord:call')!({ trusted } as unknown as IpcMainInvokeEvent, method, params)
  return { ipcMain, invoke }
}

describe('system notifications', () => {
  it('the desktop app shows one through a validated call from its own window only', async () => {
    const shown: [string, string][] = []
    t = makeCore({ notify: (title, body) => (shown.push([title, body]), true) })
    const { ipcMain, invoke } = ipcHost()
    const off = bindIpc(
      ipcMain,
      t.core,
      (e) => (e as unknown as { trusted: boolean }).trusted,
      () => null,
    )
    const call = { title: 'Ivy needs your approval', body: 'to run write_file' }
    expect(await invoke(false, 'system.notify', call)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect(await invoke(true, 'system.notify', { title: 'x'.repeat(201), body: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params' },
    })
    expect(await invoke(true, 'system.notify', { ...call, icon: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params' },
    })
    expect(await invoke(true, 'system.notify', { title: '  ', body: 'blank title' })).toMatchObject({ ok: false })
    expect(shown).toEqual([])
    expect(await invoke(true, 'system.notify', call)).toEqual({ ok: true, value: { shown: true } })
    expect(shown).toEqual([['Ivy needs your approval', 'to run write_file']])
    off()
  })

  it('concord serve has none: unsupported, the page uses the Notification API', async () => {
    t = makeCore()
    bridge = await startBridge({ core: t.core, port: 0, token: 'notify-token' })
    const res = await fetch(`http://127.0.0.1:${bridge.port}/api/system.notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer notify-token' },
      body: JSON.stringify({ title: 'Ivy finished', body: 'The reply is ready.' }),
    })
    expect(res.status).toBe(501)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported')
  })
})
