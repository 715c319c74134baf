import { useState } from 'react'
import { LoopSettings } from './LoopSettings'
import { RunnerSettingsLink } from './RunnerSettings'
import { MemberItem } from './MemberItem'
import { NotifyButton, useNotifyToggle } from './NotifyToggle'
import { TreeSettingsLink } from '../trees/TreeSettings'
import { ForgeSettingsLink } from '../trees/ForgeSettings'
import { Modal } from '../../components/ui'
import { tailOfPath } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import { selectMembers } from '../../stores/selectors'
import type { Theme } from '../../stores/types'
import type { ConnectionState } from '../../api/bridge-client'
import { IsolationLine } from '../workspaces/IsolationLine'
import { OpenRepositoryForm } from '../workspaces/Welcome'
import { MemberEditor } from './MemberEditor'
import { SearchButton } from '../search/SearchButton'
import { ArchivedLink } from '../archive/ArchivedView'

const nextTheme: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' }
const themeLabel: Record<Theme, string> = { system: '◐ System', light: '☀ Light', dark: '☾ Dark' }
const connectionTitle: Record<ConnectionState, string> = {
  open: 'connected',
  connecting: 'reconnecting…',
  closed: 'disconnected',
  unauthorized: 'token refused',
}

export function Sidebar() {
  // Below 960 px the sidebar is a rail of avatars; this opens it whole over the session.
  const [expanded, setExpanded] = useState(false)
  return (
    <aside
      className={`sidebar${expanded ? ' expanded' : ''}`}
      data-testid="sidebar"
      onClick={(e) => {
        if (expanded && (e.target as HTMLElement).closest('.member-item')) setExpanded(false)
      }}
    >
      <button
        className="icon-btn sidebar-toggle"
        onClick={() => setExpanded(!expanded)}
        aria-label={expanded ? 'Fold the sidebar' : 'Open the sidebar'}
        title={expanded ? 'Fold the sidebar' : 'Open the sidebar'}
        data-testid="sidebar-toggle"
      >
        {expanded ? '«' : '☰'}
      </button>
      <div className="brand">
        <span className="brand-mark">◆</span> <span className="brand-name">Concord</span>
      </div>
      <SearchButton />
      <WorkspaceSection />
      <TeamSection />
      <SideFoot />
    </aside>
  )
}

/** The open workspace: a select to switch (or open another repository), its folder, and its settings. */
function WorkspaceSection() {
  const workspaces = useApp((s) => s.workspaces)
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const selectWorkspace = useApp((s) => s.selectWorkspace)
  const [opening, setOpening] = useState(false)
  return (
    <div className="side-section">
      <div className="side-label">Workspace</div>
      <select
        className="ws-select"
        value={workspace?.id ?? ''}
        onChange={(e) => (e.target.value === '__open' ? setOpening(true) : void selectWorkspace(e.target.value))}
        aria-label="Workspace"
        title={workspace?.repoPath}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
        <option value="__open">Open a repository…</option>
      </select>
      {workspace && (
        <div className="ws-path" title={workspace.repoPath}>
          {tailOfPath(workspace.repoPath)}
        </div>
      )}
      <IsolationLine />
      <LoopSettings />
      <TreeSettingsLink />
      <RunnerSettingsLink />
      <ForgeSettingsLink />
      {opening && (
        <Modal title="Open a repository" onClose={() => setOpening(false)}>
          <OpenRepositoryForm onDone={() => setOpening(false)} />
        </Modal>
      )}
    </div>
  )
}

/** The members, the switch between one session and the team view, and + Add member. */
function TeamSection() {
  const members = useApp(selectMembers)
  const view = useApp((s) => s.view)
  const setView = useApp((s) => s.setView)
  const [adding, setAdding] = useState(false)
  return (
    <div className="side-section grow">
      <div className="side-label">
        Team
        <span className="spacer" />
        <button
          className={`link-btn small${view === 'team' ? ' on' : ''}`}
          onClick={() => setView(view === 'team' ? 'member' : 'team')}
          title="All sessions side by side (Alt T)"
          data-testid="team-view-toggle"
        >
          {view === 'team' ? 'Single view' : 'Team view'}
        </button>
      </div>
      <div className="member-list">
        {members.map((m, i) => (
          <MemberItem key={m.id} id={m.id} index={i} />
        ))}
      </div>
      <button className="btn ghost add-member" onClick={() => setAdding(true)}>
        + Add member
      </button>
      <ArchivedLink />
      {adding && <MemberEditor onClose={() => setAdding(false)} />}
    </div>
  )
}

/** The sidebar's foot: theme, shortcuts, notifications and the connection. */
function SideFoot() {
  const theme = useApp((s) => s.theme)
  const setTheme = useApp((s) => s.setTheme)
  const connection = useApp((s) => s.connection)
  const setShowShortcuts = useApp((s) => s.setShowShortcuts)
  const notify = useNotifyToggle()
  return (
    <div className="side-foot">
      <button
        className="link-btn small"
        onClick={() => setTheme(nextTheme[theme])}
        title="Theme"
        data-testid="theme-toggle"
      >
        {themeLabel[theme]}
      </button>
      <button className="link-btn small" onClick={() => setShowShortcuts(true)} title="Keyboard shortcuts (?)">
        ⌨ Shortcuts
      </button>
      <NotifyButton on={notify.on} toggle={notify.toggle} />
      <span className={`conn conn-${connection}`} title={connectionTitle[connection]} />
      {notify.refused && (
        <div className="side-foot-note small" role="alert" data-testid="notify-refused">
          {notify.refused}
        </div>
      )}
    </div>
  )
}
