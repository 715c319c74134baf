import { useState } from 'react'
import { ErrorText, Field } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

export function OpenRepositoryForm({ onDone }: { onDone?(): void }) {
  const openWorkspace = useApp((s) => s.openWorkspace)
  const [path, setPath] = useState('')
  const [name, setName] = useState('')
  const open = useAction(async () => {
    await openWorkspace(path.trim(), name.trim() || undefined)
    onDone?.()
  })
  return (
    <form
      className="open-repo"
      onSubmit={(e) => {
        e.preventDefault()
        void open.run()
      }}
    >
      <Field label="Repository folder" hint="The absolute path of a folder on the machine running Concord. Its harness lives in Concord's data folder, not in the repo.">
        <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/you/projects/my-app" aria-label="Repository folder" data-testid="repo-path" />
      </Field>
      <Field label="Name (optional)">
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="defaults to the folder name" aria-label="Workspace name" />
      </Field>
      <ErrorText error={open.error?.message} />
      <div className="form-actions">
        <button className="btn primary" disabled={!path.trim() || open.pending} data-testid="open-repo">
          {open.pending ? 'Opening…' : 'Open repository'}
        </button>
      </div>
    </form>
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
          Open one of your repositories. Concord keeps its <b>decisions</b>, <b>tasks</b> and <b>reports</b> apart from the chat, and tells exactly the
          affected members when a decision changes.
        </p>
        <OpenRepositoryForm />
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
