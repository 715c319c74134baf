/**
 * The workspace screen (sidebar, sessions, panels) and everything it imports: a chunk of its own, loaded by
 * App when a workspace is open (or earlier, main.tsx preloads it), so the welcome screen does not parse it.
 */
import { EmptyState, Modal } from '../components/ui'
import { PanelButton } from './PanelButton'
import { RightPanel } from './RightPanel'
import { ArchiveUndo } from '../features/archive/undo'
import { CommandPalette } from '../features/search/CommandPalette'
import { MemberSession, TeamView } from '../features/session/SessionView'
import { SetupWizard } from '../features/team/SetupWizard'
import { Sidebar } from '../features/team/Sidebar'
import { shortcutHelp } from '../lib/shortcuts'
import { useApp } from '../stores/app-store'
import { useFoldDrawerOnPress, useNarrowDrawer } from '../components/narrow-drawer'

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

function Centre() {
  const view = useApp((s) => s.view)
  const selected = useApp((s) => s.selectedMemberId)
  const count = useApp((s) => s.memberOrder.length)
  if (view === 'team' && count > 0) return <TeamView />
  if (!selected) return <EmptyState title="Pick a member on the left">Or add one with “+ Add member”.</EmptyState>
  return <MemberSession key={selected} memberId={selected} />
}

export default function WorkspaceScreen() {
  const loading = useApp((s) => s.workspaceLoading)
  const memberCount = useApp((s) => s.memberOrder.length)
  const panelOpen = useApp((s) => s.panelOpen)
  // A workspace opened in a narrow window starts with the right panel folded.
  useNarrowDrawer()
  const foldDrawer = useFoldDrawerOnPress()
  return (
    <div className={`app${panelOpen ? '' : ' panel-closed'}`} data-testid="app">
      <Sidebar />
      <main className="centre" onPointerDown={foldDrawer}>
        {loading && memberCount === 0 ? (
          <div className="splash">Loading…</div>
        ) : memberCount === 0 ? (
          <SetupWizard />
        ) : (
          <Centre />
        )}
      </main>
      {panelOpen ? <RightPanel /> : <PanelButton does="show" />}
      <Shortcuts />
      <CommandPalette />
      <ArchiveUndo />
    </div>
  )
}
