/** Exposes the typed `window.api` (derived from the contract) and nothing else. */
import { contextBridge, ipcRenderer } from 'electron'
import type { ConcordApi } from '../../shared/api'
import { decode, unwrap } from '../../shared/wire'

const api: ConcordApi = {
  call: (method, params) =>
    ipcRenderer
      .invoke('concord:call', method, params)
      .then((res: unknown) => unwrap(decode(res, 'the Concord core sent a malformed answer'))),
  onEvent: (listener) => {
    const wrapped = (_e: unknown, envelope: Parameters<typeof listener>[0]) => listener(envelope)
    ipcRenderer.on('concord:event', wrapped)
    return () => {
      ipcRenderer.removeListener('concord:event', wrapped)
    }
  },
}

contextBridge.exposeInMainWorld('api', api)
