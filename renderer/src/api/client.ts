/**
 * Chooses the transport: Electron's preload `window.api`, else the browser bridge with the token
 * the page was opened with (`?token=`), kept in sessionStorage and removed from the address bar.
 */
import type { ConcordApi } from '../../../shared/api'
import { createBridgeClient, type ClientApi, type ConnectionState } from './bridge-client'

declare global {
  interface Window {
    api?: ConcordApi
  }
}

const TOKEN_KEY = 'concord.token'

/** Reads `?token=` once, remembers it for this tab and strips it from the URL. */
export function takeToken(
  loc: Location = location,
  storage: Storage = sessionStorage,
  hist: History = history,
): string | null {
  const url = new URL(loc.href)
  const fromUrl = url.searchParams.get('token')
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl)
    url.searchParams.delete('token')
    hist.replaceState(hist.state, '', url.pathname + url.search + url.hash)
    return fromUrl
  }
  return storage.getItem(TOKEN_KEY)
}

export function forgetToken(storage: Storage = sessionStorage): void {
  storage.removeItem(TOKEN_KEY)
}

export type ApiChoice =
  { kind: 'electron'; api: ClientApi } | { kind: 'browser'; api: ClientApi } | { kind: 'no-token' }

/** Wraps the preload api so both transports offer the same connection hooks. */
function fromPreload(api: ConcordApi): ClientApi {
  return {
    call: (m, p) => api.call(m, p),
    onEvent: (l) => api.onEvent(l),
    onConnection: (l: (s: ConnectionState) => void) => {
      l('open')
      return () => {}
    },
    close: () => {},
  }
}

export function chooseApi(): ApiChoice {
  if (window.api) return { kind: 'electron', api: fromPreload(window.api) }
  const token = takeToken()
  if (!token) return { kind: 'no-token' }
  const api = createBridgeClient({ origin: location.origin, token })
  // A refused token is not kept for the next load: that shows what to open instead of trying it again.
  api.onConnection((state) => {
    if (state === 'unauthorized') forgetToken()
  })
  return { kind: 'browser', api }
}
