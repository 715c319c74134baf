import { useEffect } from 'react'
import { Welcome } from '../features/workspaces/Welcome'
import { matchShortcut } from '../lib/shortcuts'
import { useApp, useAppStore } from '../stores/app-store'
import { loadWorkspaceScreen, useWorkspaceScreen } from './screens'
import { ServerDownBanner } from './ServerDownBanner'
import './layout.css'

function useTheme() {
  const theme = useApp((s) => s.theme)
  useEffect(() => {
    const media = window.matchMedia?.('(prefers-color-scheme: dark)')
    const apply = () => {
      document.documentElement.dataset.theme = theme === 'system' ? (media?.matches ? 'dark' : 'light') : theme
    }
    apply()
    media?.addEventListener?.('change', apply)
    return () => media?.removeEventListener?.('change', apply)
  }, [theme])
}

function useShortcuts() {
  const store = useAppStore()
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null
      const inField =
        !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)
      const action = matchShortcut({
        key: e.key,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        altKey: e.altKey,
        shiftKey: e.shiftKey,
        inField,
      })
      if (!action) return
      const s = store.getState()
      const order = s.memberOrder
      const at = s.selectedMemberId ? order.indexOf(s.selectedMemberId) : -1
      switch (action.type) {
        case 'member': {
          const id = order[action.index]
          if (id) s.selectMember(id)
          break
        }
        case 'prevMember': {
          const id = order[(at - 1 + order.length) % order.length]
          if (id) s.selectMember(id)
          break
        }
        case 'nextMember': {
          const id = order[(at + 1) % order.length]
          if (id) s.selectMember(id)
          break
        }
        case 'palette':
          if (!s.workspaceId) return
          s.setPaletteOpen(true)
          break
        case 'focusComposer':
          if (s.view === 'team') s.setView('member')
          s.focusComposer()
          break
        case 'toggleTeam':
          s.setView(s.view === 'team' ? 'member' : 'team')
          break
        case 'togglePanel':
          s.setPanelOpen(!s.panelOpen)
          break
        case 'help':
          s.setShowShortcuts(true)
          break
        case 'escape':
          return
      }
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [store])
}

export function App() {
  useTheme()
  useShortcuts()
  const loaded = useApp((s) => s.workspacesLoaded)
  const workspaceId = useApp((s) => s.workspaceId)
  const error = useApp((s) => s.connection === 'closed')
  // The workspace screen is a chunk of its own: the welcome screen does not parse the sessions, panels and markdown.
  const { screen, failure } = useWorkspaceScreen()
  useEffect(() => {
    if (workspaceId && !screen) void loadWorkspaceScreen().catch(() => undefined)
  }, [workspaceId, screen, error])

  if (!loaded) return <div className="splash">{error ? 'Cannot reach Concord.' : 'Loading…'}</div>
  // Over every screen once loaded (the welcome screen too): a server that went away, or one that refuses this tab.
  return (
    <>
      {!workspaceId ? (
        <Welcome />
      ) : !screen ? (
        <div className="splash">
          {failure
            ? `Concord could not load the workspace screen (${failure.message}); it tries again when the server is back.`
            : 'Loading…'}
        </div>
      ) : (
        <screen.default />
      )}
      <ServerDownBanner />
    </>
  )
}
