/** Exposes the typed `window.api` (derived from the contract) and nothing else. */
import { contextBridge, ipcRenderer } from 'electron'
import type { ConcordApi } from '../../shared/api'

const api: ConcordApi = {
  call: (method, params) =>
    ipcRenderer.invoke('concord:call', method, params).then((res: { ok: boolean; value?: unknown; error?: { code: string; message: string } }) => {
      if (res.ok) return res.value as never
      throw Object.assign(new Error(res.error!.message), { code: res.error!.code, details: (res.error as { details?: unknown }).details })
    }),
  onEvent: (listener) => {
    const wrapped = (_e: unknown, envelope: Parameters<typeof listener>[0]) => listener(envelope)
    ipcRenderer.on('concord:event', wrapped)
    return () => {
      ipcRenderer.removeListener('concord:event', wrapped)
    }
  },
}

contextBridge.exposeInMainWorld('api', api)
