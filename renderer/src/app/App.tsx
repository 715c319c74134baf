import { useEffect } from 'react'
import { EmptyState, Modal } from '../components/ui'
import { RightPanel } from '../features/RightPanel'
import { ArchiveUndo } from '../features/archive/undo'
import { MemberSession, TeamView } from '../features/session/SessionView'
import { SetupWizard } from '../features/team/SetupWizard'
import { Sidebar } from '../features/team/Sidebar'
import { Welcome } from '../features/workspaces/Welcome'
import { matchShortcut, shortcutHelp } from '../lib/shortcuts'
import { useApp, useAppStore } from '../stores/app-store'
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
      const inField = !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)
      const action = matchShortcut({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, shiftKey: e.shiftKey, inField })
      if (!action) return
      const s = store.getState()
      const order = s.memberOrder
      const at = s.selectedMemberId ? order.indexOf(s.selectedMemberId) : -1
      switch (action.type) {
        case 'member':
          if (!order[action.index]) return
          s.selectMember(order[action.index])
          break
        case 'prevMember':
          if (!order.length) return
          s.selectMember(order[(at - 1 + order.length) % order.length])
          break
        case 'nextMember':
          if (!order.length) return
          s.selectMember(order[(at + 1) % order.length])
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

function Shortcuts() {
  const show = useApp((s) => s.showShortcuts)
  const setShow = useApp((s) => s.setShowShortcuts)
  if (!show) return null
  return (
    <Modal title="Keyboard shortcuts" onClose={() => setShow(false)}>
      <table className="shortcuts">
        <tbody>
          {shortcutHelp.map((s) => (
            <tr key={s.keys}>
              <td>
                <kbd>{s.keys}</kbd>
              </td>
              <td>{s.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  )
}

/** The server is down or being reconnected to: say so where it cannot be missed, not only with a grey dot. */
function ServerDownBanner() {
  const connection = useApp((s) => s.connection)
  if (connection === 'open') return null
  return (
    <div className="server-down" role="alert" data-testid="server-down" data-connection={connection}>
      <strong>{connection === 'connecting' ? 'Reconnecting to Concord…' : 'Concord’s server is not reachable.'}</strong> Nothing you do now is saved, and members’ replies do not arrive. It reconnects
      by itself when the server is back (<code>concord serve</code> or the app).
    </div>
  )
}

function Centre() {
  const view = useApp((s) => s.view)
  const selected = useApp((s) => s.selectedMemberId)
  const count = useApp((s) => s.memberOrder.length)
  if (view === 'team' && count > 0) return <TeamView />
  if (!selected) return <EmptyState title="Pick a member on the left">Or add one with “+ Add member”.</EmptyState>
  return <MemberSession key={selected} memberId={selected} />
}

export function App() {
  useTheme()
  useShortcuts()
  const loaded = useApp((s) => s.workspacesLoaded)
  const workspaceId = useApp((s) => s.workspaceId)
  const loading = useApp((s) => s.workspaceLoading)
  const memberCount = useApp((s) => s.memberOrder.length)
  const panelOpen = useApp((s) => s.panelOpen)
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  const error = useApp((s) => s.connection === 'closed')

  if (!loaded) return <div className="splash">{error ? 'Cannot reach Concord.' : 'Loading…'}</div>
  if (!workspaceId) return <Welcome />
  return (
    <div className={`app${panelOpen ? '' : ' panel-closed'}`} data-testid="app">
      <Sidebar />
      <main className="centre">{loading && memberCount === 0 ? <div className="splash">Loading…</div> : memberCount === 0 ? <SetupWizard /> : <Centre />}</main>
      {panelOpen ? (
        <RightPanel />
      ) : (
        <button className="panel-open" onClick={() => setPanelOpen(true)} title="Show panel (Alt P)" aria-label="Show panel">
          ‹
        </button>
      )}
      <Shortcuts />
      <ArchiveUndo />
      <ServerDownBanner />
    </div>
  )
}
