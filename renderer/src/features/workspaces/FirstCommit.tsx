/**
 * A repository with no commit yet (git init and nothing else) has nothing for tasks to branch from: the offer of the
 * first commit (workspaces.firstCommit), empty or of the folder's files, shown under the workspace's note and on a
 * card whose start was refused (code no_commit), which then starts.
 */
import { ChoiceButtons } from '../../components/ChoiceButtons'
import { ErrorText } from '../../components/ui'
import { useNoteFix } from './note-fix'
import './first-commit.css'

export const NO_COMMIT_NOTE = 'No commit yet:'

export function FirstCommitOffer({ onDone }: { onDone?: () => void }) {
  const make = useNoteFix(
    NO_COMMIT_NOTE,
    async (api, workspaceId, contents: 'empty' | 'files') =>
      (await api.call('workspaces.firstCommit', { workspaceId, contents })).settings,
    onDone,
  )
  return (
    <div className="ws-note-fix first-commit" data-testid="first-commit">
      <ChoiceButtons
        disabled={make.pending}
        choices={[
          {
            label: 'Commit the folder’s files',
            onClick: () => void make.run('files'),
            tone: 'primary',
            type: 'button',
            testId: 'first-commit-files',
            title: 'git add -A and a commit of the folder as it is (what .gitignore names stays out)',
          },
          {
            label: 'Empty first commit',
            onClick: () => void make.run('empty'),
            type: 'button',
            testId: 'first-commit-empty',
            title: 'A commit with no files: your files stay as they are, uncommitted',
          },
        ]}
      />
      <ErrorText error={make.error?.message} />
    </div>
  )
}
