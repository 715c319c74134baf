import { useState } from 'react'
import { RunButton } from '../../components/RunButton'
import { ErrorText, Field } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { ArchivedWorkspaces } from '../archive/ArchivedView'
import { FolderBrowser } from './FolderBrowser'

export function OpenRepositoryForm({ onDone }: { onDone?(): void }) {
  const openWorkspace = useApp((s) => s.openWorkspace)
  const api = useApp((s) => s.api)
  const nativeDialogs = useApp((s) => s.nativeDialogs)
  const [path, setPath] = useState('')
  const [name, setName] = useState('')
  const [browsing, setBrowsing] = useState(false)
  const open = useAction(async () => {
    await openWorkspace(path.trim(), name.trim() || undefined)
    onDone?.()
  })
  // The desktop app asks the system's folder dialog; the browser shows Concord's own.
  const pick = useAction(async () => {
    if (!nativeDialogs) {
      setBrowsing(true)
      return
    }
    const { path: chosen } = await api.call('folders.pick', {})
    if (chosen) setPath(chosen)
  })
  return (
    <>
      <form
        className="open-repo"
        onSubmit={(e) => {
          e.preventDefault()
          void open.run()
        }}
      >
        <Field
          label="Repository folder"
          hint="Browse for it or type its absolute path, on the machine running Concord. Its harness lives in Concord's data folder, not in the repo."
        >
          <div className="input-with-button">
            <input
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder="/home/you/projects/my-app"
              aria-label="Repository folder"
              data-testid="repo-path"
            />
            <RunButton action={pick} testId="browse-folders">
              Browse…
            </RunButton>
          </div>
        </Field>
        <Field label="Name (optional)">
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="defaults to the folder name"
            aria-label="Workspace name"
          />
        </Field>
        <ErrorText error={open.error?.message ?? pick.error?.message} />
        <div className="form-actions">
          <button className="btn primary" disabled={!path.trim() || open.pending} data-testid="open-repo">
            {open.pending ? 'Opening…' : 'Open repository'}
          </button>
        </div>
      </form>
      {browsing && (
        <FolderBrowser
          start={path}
          onClose={() => setBrowsing(false)}
          onChoose={(chosen) => {
            setPath(chosen)
            setBrowsing(false)
          }}
        />
      )}
    </>
  )
}

/** First screen: open a repository (one workspace per repo), or pick a recent one. */
export function Welcome() {
  const workspaces = useApp((s) => s.workspaces)
  const selectWorkspace = useApp((s) => s.selectWorkspace)
  return (
    <div className="setup" data-testid="welcome">
      <div className="setup-card">
        <div className="brand big">
          <span className="brand-mark">◆</span> Concord
        </div>
        <h1>Keep your AI team agreeing on what is being built</h1>
        <p className="muted">
          Open one of your repositories. Concord keeps its <b>decisions</b>, <b>tasks</b> and <b>reports</b> apart from
          the chat, and tells exactly the affected members when a decision changes.
        </p>
        <OpenRepositoryForm />
        <ArchivedWorkspaces />
        {workspaces.length > 0 && (
          <div className="recent">
            <h3>Recent workspaces</h3>
            {workspaces.map((w) => (
              <button key={w.id} className="recent-item" onClick={() => void selectWorkspace(w.id)}>
                <span className="recent-name">{w.name}</span>
                <span className="recent-path">{w.repoPath}</span>
                <span className="muted small">{shortTime(w.createdAt)}</span>
              </button>
            ))}
          </div>
        )}
      </div>
    </div>
  )
}
