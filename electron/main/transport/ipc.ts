import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron'
import { errorShape } from '../api/dispatch'
import type { Core } from '../core'
import { refuse, respond } from '../../../shared/wire'

/**
 * Binds the contract to Electron IPC. Only our own window's top frame, showing our own renderer,
 * may call; every payload is validated by the same dispatch the bridge uses.
 */
export function bindIpc(
  ipcMain: IpcMain,
  core: Core,
  isTrusted: (event: IpcMainInvokeEvent) => boolean,
  target: () => WebContents | null,
): () => void {
  ipcMain.handle('concord:call', async (event, method: unknown, params: unknown) => {
    if (!isTrusted(event)) return refuse({ code: 'forbidden', message: 'untrusted sender' })
    if (typeof method !== 'string') return refuse({ code: 'invalid_params', message: 'method must be a string' })
    try {
      return respond(await core.call(method, params))
    } catch (err) {
      return refuse(errorShape(err))
    }
  })
  const off = core.bus.on((envelope) => {
    const wc = target()
    if (wc && !wc.isDestroyed()) wc.send('concord:event', envelope)
  })
  return () => {
    off()
    ipcMain.removeHandler('concord:call')
  }
}
