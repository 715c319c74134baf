import { useState } from 'react'
import { FirstCommitOffer, NO_COMMIT_NOTE } from '../workspaces/FirstCommit'
import { LoopSettings } from './LoopSettings'
import { NotifyButton, useNotifyToggle } from './NotifyToggle'
import { TreeSettingsLink } from '../trees/TreeSettings'
import { ForgeSettingsLink } from '../trees/ForgeSettings'
import { Avatar, ErrorText, Modal, StatusDot, stateWords } from '../../components/ui'
import { tailOfPath } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import { selectMembers } from '../../stores/selectors'
import type { Theme } from '../../stores/types'
import type { ConnectionState } from '../../api/bridge-client'
import { OpenRepositoryForm } from '../workspaces/Welcome'
import { MemberEditor } from './MemberEditor'
import { SearchButton } from '../search/SearchButton'
import { ArchivedLink } from '../archive/ArchivedView'

function MemberItem({ id, index }: { id: string; index: number }) {
  const member = useApp((s) => s.members[id])
  // Only what the item shows: a streaming reply changes the session many times a second.
  const info = useApp((s) => s.sessions[id]?.info)
  const unread = useApp((s) => s.sessions[id]?.unread ?? 0)
  const selected = useApp((s) => s.view === 'member' && s.selectedMemberId === id)
  const selectMember = useApp((s) => s.selectMember)
  if (!member) return null
  const state = info?.state ?? 'idle'
  const approvals = info?.pendingApprovals.length ?? 0
  // Idle without a provider is not ready: it cannot answer until it gets an agent and model.
  const noModel = !member.provider && state === 'idle'
  return (
    <button
      className={`member-item${selected ? ' selected' : ''}`}
      onClick={() => selectMember(id)}
      data-testid="member-item"
      data-member-id={id}
      data-state={state}
      data-no-model={noModel ? 'true' : undefined}
      title={`${member.name} (${member.role}) — ${noModel ? 'no model: give it an agent and model in its settings' : stateWords[state]}${index < 9 ? `  ·  Ctrl/⌘ ${index + 1}` : ''}`}
    >
      <span className="member-avatar">
        <Avatar id={member.id} name={member.name} />
        {noModel ? (
          <span className="status-dot status-nomodel" title="no model" aria-label="no model" />
        ) : (
          <StatusDot state={state} />
        )}
      </span>
      <span className="member-text">
        <span className="member-name">{member.name}</span>
        {noModel ? (
          <span className="member-state state-nomodel" data-testid="no-model">
            no model
          </span>
        ) : (
          <span className={`member-state state-${state}`}>
            {state === 'idle' ? (info?.question ? 'has a question for you' : member.role) : stateWords[state]}
          </span>
        )}
      </span>
      <span className="member-badges">
        {info?.question && (
          <span
            className="count accent"
            title={`${member.name} asks you: ${info.question.text}`}
            data-testid="question-badge"
          >
            ?
          </span>
        )}
        {approvals > 0 && (
          <span className="count warn" title={`${approvals} approval${approvals === 1 ? '' : 's'} waiting`}>
            !
          </span>
        )}
        {info && info.pendingNotices > 0 && (
          <span className="count info" title={`${info.pendingNotices} notice(s) not yet seen by ${member.name}`}>
            {info.pendingNotices}
          </span>
        )}
        {unread > 0 && (
          <span className="count accent" title="new replies">
            {unread}
          </span>
        )}
      </span>
    </button>
  )
}

const nextTheme: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' }
const themeLabel: Record<Theme, string> = { system: '◐ System', light: '☀ Light', dark: '☾ Dark' }
const connectionTitle: Record<ConnectionState, string> = {
  open: 'connected',
  connecting: 'reconnecting…',
  closed: 'disconnected',
  unauthorized: 'token refused',
}

export function Sidebar() {
  const workspaces = useApp((s) => s.workspaces)
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const selectWorkspace = useApp((s) => s.selectWorkspace)
  const members = useApp(selectMembers)
  const view = useApp((s) => s.view)
  const setView = useApp((s) => s.setView)
  const theme = useApp((s) => s.theme)
  const setTheme = useApp((s) => s.setTheme)
  const connection = useApp((s) => s.connection)
  const setShowShortcuts = useApp((s) => s.setShowShortcuts)
  const notify = useNotifyToggle()
  const [adding, setAdding] = useState(false)
  const [opening, setOpening] = useState(false)
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
        <ForgeSettingsLink />
      </div>
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
      </div>
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
      {adding && <MemberEditor onClose={() => setAdding(false)} />}
      {opening && (
        <Modal title="Open a repository" onClose={() => setOpening(false)}>
          <OpenRepositoryForm onDone={() => setOpening(false)} />
        </Modal>
      )}
    </aside>
  )
}

/** How members share the repository: a branch per task, or the folder itself; and what opening it said. */
function IsolationLine() {
  const settings = useApp((s) => s.workspaceSettings)
  const notes = useApp((s) => s.workspaceNotes)
  if (!settings) return null
  return (
    <div className="ws-isolation small muted" data-testid="ws-isolation">
      {settings.isolation === 'worktree' ? (
        <span title="Each started task gets its own branch and worktree; your checkout is never written">
          ⎇ a branch per task, from {settings.baseBranch}
        </span>
      ) : (
        // The note from opening a plain folder already says it, at more length.
        notes.length === 0 && (
          <span title="Every member writes this folder directly">shared folder: members write it directly</span>
        )
      )}
      {notes.map((n) => (
        <div key={n} className="ws-note">
          {n}
          {n.startsWith('Shared:') && settings.isolation === 'shared' && <SwitchToWorktrees />}
          {n.startsWith(NO_COMMIT_NOTE) && <FirstCommitOffer />}
          {n.startsWith('Not a git repository') && (
            <div className="ws-note-fix" data-testid="not-git-fix">
              To get branches per task, diffs and checked commits: <code>git init</code> and a first commit in the
              folder, then open it again.
            </div>
          )}
        </div>
      ))}
    </div>
  )
}

/** A shared workspace's offer: a branch and worktree per task from now on (workspaces.update {isolation: 'worktree'}). */
function SwitchToWorktrees() {
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const save = useAction(async () => {
    if (!workspaceId) return
    const next = await api.call('workspaces.update', { workspaceId, isolation: 'worktree' })
    if (store.getState().workspaceId === workspaceId)
      store.setState({
        workspaceSettings: next,
        workspaceNotes: store.getState().workspaceNotes.filter((n) => !n.startsWith('Shared:')),
      })
  })
  return (
    <div className="ws-note-fix">
      <button
        type="button"
        className="btn small"
        onClick={() => void save.run()}
        disabled={save.pending}
        data-testid="switch-to-worktrees"
      >
        Use a branch per task
      </button>
      <ErrorText error={save.error?.message} />
    </div>
  )
}
