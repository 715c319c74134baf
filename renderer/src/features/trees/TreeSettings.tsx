/**
 * The workspace's task-tree settings (workspaces.update): the files copied from your checkout into each new tree, the
 * setup command run there, the run command a card can start, and whether those commands may use the network.
 */
import { useState } from 'react'
import { CheckboxRow } from '../../components/CheckboxRow'
import { DialogActions } from '../../components/DialogActions'
import { ErrorText, Modal } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import { SettingField, SettingsLink } from './SettingField'
import './trees.css'

export function TreeSettingsLink() {
  const settings = useApp((s) => s.workspaceSettings)
  if (settings?.isolation !== 'worktree') return null
  const set = [settings.setupCommand && 'setup', settings.copyFiles.length > 0 && 'files', settings.runCommand && 'run']
  const summary = set.filter(Boolean).join(', ')
  return (
    <SettingsLink
      testId="tree-settings-open"
      title="Files copied into each task's tree, its setup command, and a run command"
      label={`Task trees${summary ? `: ${summary}` : '…'}`}
      dialog={(onClose) => <TreeSettings onClose={onClose} />}
    />
  )
}

function TreeSettings({ onClose }: { onClose(): void }) {
  const settings = useApp((s) => s.workspaceSettings)!
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const [setupCommand, setSetup] = useState(settings.setupCommand ?? '')
  const [copyFiles, setCopy] = useState(settings.copyFiles.join('\n'))
  const [runCommand, setRun] = useState(settings.runCommand ?? '')
  const [treeNetwork, setNetwork] = useState(settings.treeNetwork)
  const [transferLimit, setTransferLimit] = useState(String(settings.treeTransferLimitMB))
  const save = useAction(async () => {
    if (!workspaceId) return
    const next = await api.call('workspaces.update', {
      workspaceId,
      setupCommand,
      runCommand,
      treeNetwork,
      // Sent as typed: the server names a bad value (treeTransferLimitMB) rather than this form guessing one.
      treeTransferLimitMB: Number(transferLimit),
      copyFiles: copyFiles
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    })
    if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    onClose()
  })
  const draft = { copyFiles, setCopy, setupCommand, setSetup, runCommand, setRun, transferLimit, setTransferLimit }
  return (
    <Modal
      title="Task trees"
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          onConfirm={() => void save.run()}
          confirmLabel="Save"
          disabled={save.pending}
          testId="tree-settings-save"
        />
      }
    >
      <div className="tree-settings" data-testid="tree-settings">
        <p className="muted small">
          Each started task works in a tree of its own, made from the base branch. These make it ready to work in; they
          apply to trees made from now on (a card’s “Set up again” applies them to its tree).
        </p>
        <TreeSettingFields {...draft} />
        <CheckboxRow className="check small" checked={treeNetwork} onChange={setNetwork} testId="tree-network">
          The setup and run commands may use the network (they are yours, not a member’s)
        </CheckboxRow>
        <ErrorText error={save.error?.message} />
      </div>
    </Modal>
  )
}

type Setter = (value: string) => void

/** The tree settings' text fields: files copied in, the setup and run commands, the largest transfer. */
function TreeSettingFields(p: {
  copyFiles: string
  setCopy: Setter
  setupCommand: string
  setSetup: Setter
  runCommand: string
  setRun: Setter
  transferLimit: string
  setTransferLimit: Setter
}) {
  return (
    <>
      <SettingField
        name="Files copied from your checkout"
        hint={
          <>
            One path or glob a line, relative to your checkout: files not in the commit (ignored or untracked). Never
            out of the checkout (no <code>..</code>, no absolute paths, no symlinks that lead out) and never{' '}
            <code>.git</code>.
          </>
        }
      >
        <textarea
          rows={3}
          value={p.copyFiles}
          onChange={(e) => p.setCopy(e.target.value)}
          placeholder={'.env\nconfig/*.local.json'}
          data-testid="tree-copy-files"
        />
      </SettingField>
      <SettingField
        name="Setup command"
        hint="Run in the sandbox in each new tree, after the files are copied; members’ turns in it wait for it. Its output shows on the task’s card."
      >
        <input
          type="text"
          value={p.setupCommand}
          onChange={(e) => p.setSetup(e.target.value)}
          placeholder="npm ci"
          data-testid="tree-setup-command"
        />
      </SettingField>
      <SettingField
        name="Run command"
        hint="A dev server or the tests: a task’s card starts it in its tree and stops it."
      >
        <input
          type="text"
          value={p.runCommand}
          onChange={(e) => p.setRun(e.target.value)}
          placeholder="npm run dev"
          data-testid="tree-run-command"
        />
      </SettingField>
      <SettingField
        name="Largest transfer of a tree (MB)"
        hint="The most a task’s new commits may weigh when Concord brings them into your repository; heavier ones are refused, naming their size."
      >
        <input
          type="number"
          min={1}
          value={p.transferLimit}
          onChange={(e) => p.setTransferLimit(e.target.value)}
          data-testid="tree-transfer-limit"
        />
      </SettingField>
    </>
  )
}
