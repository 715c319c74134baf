import { RunButton } from '../../components/RunButton'
import { ErrorText } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { FirstCommitOffer, NO_COMMIT_NOTE } from './FirstCommit'
import { useNoteFix } from './note-fix'

/** How members share the repository: a branch per task, or the folder itself; and what opening it said. */
export function IsolationLine() {
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
  const save = useNoteFix('Shared:', (api, workspaceId) =>
    api.call('workspaces.update', { workspaceId, isolation: 'worktree' }),
  )
  return (
    <div className="ws-note-fix">
      <RunButton action={save} className="btn small" testId="switch-to-worktrees">
        Use a branch per task
      </RunButton>
      <ErrorText error={save.error?.message} />
    </div>
  )
}
