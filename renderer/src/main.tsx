import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { chooseApi, forgetToken } from './api/client'
import { App } from './app/App'
import { loadWorkspaceScreen } from './app/screens'
import { asClientError } from './api/errors'
import { createAppStore, StoreContext } from './stores/app-store'
import { connectEvents } from './stores/events'
import './styles.css'
import './highlight.css'

const root = createRoot(document.getElementById('root')!)
const choice = chooseApi()

if (choice.kind === 'no-token') {
  root.render(
    <div className="splash">
      <div className="setup-card">
        <h1>Concord needs its access token</h1>
        <p>
          Open the address that <code>concord serve</code> printed — it ends in <code>?token=…</code>. The token keeps
          other pages on this machine out of your workspaces.
        </p>
      </div>
    </div>,
  )
} else {
  const store = createAppStore(choice.api, { persist: true, nativeDialogs: choice.kind === 'electron' })
  // Events are wired once, outside React, before the first render.
  connectEvents(store)
  const boot = async () => {
    try {
      await store.getState().loadWorkspaces()
      const { lastWorkspaceId, workspaces } = store.getState()
      const start =
        workspaces.find((w) => w.id === lastWorkspaceId) ?? (workspaces.length === 1 ? workspaces[0] : undefined)
      if (start) await store.getState().selectWorkspace(start.id)
    } catch (err) {
      const e = asClientError(err)
      if (e.code === 'unauthorized') {
        // A refused token is not kept for the next load, and the event socket stops retrying it.
        forgetToken()
        choice.api.close()
      }
      if (!store.getState().workspacesLoaded) {
        root.render(
          <div className="splash">
            <div className="setup-card">
              <h1>Concord could not start</h1>
              <p>
                {e.code === 'unauthorized'
                  ? 'The access token was refused. Open the address that `concord serve` printed, with its ?token=.'
                  : e.message}
              </p>
            </div>
          </div>,
        )
      }
      console.error('Concord failed to start:', e.message)
    }
  }
  const booted = boot()
  // The first API call is on its way: a workspace that will open loads its screen's chunk meanwhile, not after.
  if (store.getState().lastWorkspaceId) void loadWorkspaceScreen()
  void booted.then(() => {
    const idle = (cb: () => void) =>
      typeof requestIdleCallback === 'function' ? requestIdleCallback(cb, { timeout: 1000 }) : setTimeout(cb, 50)
    idle(() => {
      // After the first screen: the workspace screen (for the welcome screen's next click) and the markdown processor.
      void loadWorkspaceScreen()
        .then(() => import('./components/markdown-render'))
        .then((m) => m.prewarmMarkdown())
        .catch((err: unknown) => console.error('Concord could not preload the workspace screen:', err))
        .finally(() => {
          document.documentElement.dataset.ready = 'true'
        })
    })
  })
  root.render(
    <StrictMode>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </StrictMode>,
  )
}
