/**
 * The workspace's task-tree settings (workspaces.update): the files copied from your checkout into each new tree, the
 * setup command run there, the run command a card can start, and whether those commands may use the network.
 */
import { useState } from 'react'
import { CheckboxRow } from '../../components/CheckboxRow'
import { ActionDialog } from '../../components/ActionDialog'
import { ErrorText } from '../../components/ui'
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
  const [draft, setDraft] = useState<TreeDraft>({
    copyFiles: settings.copyFiles.join('\n'),
    setupCommand: settings.setupCommand ?? '',
    runCommand: settings.runCommand ?? '',
    transferLimit: String(settings.treeTransferLimitMB),
  })
  const [treeNetwork, setNetwork] = useState(settings.treeNetwork)
  const save = useAction(async () => {
    if (!workspaceId) return
    const next = await api.call('workspaces.update', {
      workspaceId,
      setupCommand: draft.setupCommand,
      runCommand: draft.runCommand,
      treeNetwork,
      // Sent as typed: the server names a bad value (treeTransferLimitMB) rather than this form guessing one.
      treeTransferLimitMB: Number(draft.transferLimit),
      copyFiles: draft.copyFiles
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    })
    if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    onClose()
  })
  return (
    <ActionDialog title="Task trees" onClose={onClose} action={save} testId="tree-settings-save">
      <div className="tree-settings" data-testid="tree-settings">
        <p className="muted small">
          Each started task works in a tree of its own, made from the base branch. These make it ready to work in; they
          apply to trees made from now on (a card’s “Set up again” applies them to its tree).
        </p>
        <TreeSettingFields draft={draft} set={(key, value) => setDraft((d) => ({ ...d, [key]: value }))} />
        <CheckboxRow className="check small" checked={treeNetwork} onChange={setNetwork} testId="tree-network">
          The setup and run commands may use the network (they are yours, not a member’s)
        </CheckboxRow>
        <ErrorText error={save.error?.message} />
      </div>
    </ActionDialog>
  )
}

/** The tree settings' text fields as typed: files copied in (one a line), the commands, the largest transfer. */
interface TreeDraft {
  copyFiles: string
  setupCommand: string
  runCommand: string
  transferLimit: string
}

/** The commands a tree is set up and run with: one text field each. */
const commandFields = [
  {
    key: 'setupCommand',
    name: 'Setup command',
    hint: 'Run in the sandbox in each new tree, after the files are copied; members’ turns in it wait for it. Its output shows on the task’s card.',
    placeholder: 'npm ci',
    testId: 'tree-setup-command',
  },
  {
    key: 'runCommand',
    name: 'Run command',
    hint: 'A dev server or the tests: a task’s card starts it in its tree and stops it.',
    placeholder: 'npm run dev',
    testId: 'tree-run-command',
  },
] as const

/** The tree settings' text fields: files copied in, the setup and run commands, the largest transfer. */
function TreeSettingFields({ draft, set }: { draft: TreeDraft; set(key: keyof TreeDraft, value: string): void }) {
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
          value={draft.copyFiles}
          onChange={(e) => set('copyFiles', e.target.value)}
          placeholder={'.env\nconfig/*.local.json'}
          data-testid="tree-copy-files"
        />
      </SettingField>
      {commandFields.map((f) => (
        <SettingField key={f.key} name={f.name} hint={f.hint}>
          <input
            type="text"
            value={draft[f.key]}
            onChange={(e) => set(f.key, e.target.value)}
            placeholder={f.placeholder}
            data-testid={f.testId}
          />
        </SettingField>
      ))}
      <SettingField
        name="Largest transfer of a tree (MB)"
        hint="The most a task’s new commits may weigh when Concord brings them into your repository; heavier ones are refused, naming their size."
      >
        <input
          type="number"
          min={1}
          value={draft.transferLimit}
          onChange={(e) => set('transferLimit', e.target.value)}
          data-testid="tree-transfer-limit"
        />
      </SettingField>
    </>
  )
}
