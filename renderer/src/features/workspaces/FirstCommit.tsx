/**
 * A repository with no commit yet (git init and nothing else) has nothing for tasks to branch from: the offer of the
 * first commit (workspaces.firstCommit), empty or of the folder's files, shown under the workspace's note and on a
 * card whose start was refused (code no_commit), which then starts.
 */
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import './first-commit.css'

export const NO_COMMIT_NOTE = 'No commit yet:'

export function FirstCommitOffer({ onDone }: { onDone?: () => void }) {
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const make = useAction(async (contents: 'empty' | 'files') => {
    if (!workspaceId) return
    const made = await api.call('workspaces.firstCommit', { workspaceId, contents })
    if (store.getState().workspaceId === workspaceId)
      store.setState({
        workspaceSettings: made.settings,
        workspaceNotes: store.getState().workspaceNotes.filter((n) => !n.startsWith(NO_COMMIT_NOTE)),
      })
    onDone?.()
  })
  return (
    <div className="ws-note-fix first-commit" data-testid="first-commit">
      <button
        type="button"
        className="btn small primary"
        disabled={make.pending}
        onClick={() => void make.run('files')}
        data-testid="first-commit-files"
        title="git add -A and a commit of the folder as it is (what .gitignore names stays out)"
      >
        Commit the folder’s files
      </button>{' '}
      <button
        type="button"
        className="btn small"
        disabled={make.pending}
        onClick={() => void make.run('empty')}
        data-testid="first-commit-empty"
        title="A commit with no files: your files stay as they are, uncommitted"
      >
        Empty first commit
      </button>
      <ErrorText error={make.error?.message} />
    </div>
  )
}
