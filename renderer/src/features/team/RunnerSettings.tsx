/** The workspace's default runner (workspaces.update defaultRunner): where its external agents run unless they say (issue 36). */
import { useState } from 'react'
import { runnerText } from '../../../../shared/runners'
import { ActionDialog } from '../../components/ActionDialog'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import { SettingsLink } from '../trees/SettingField'
import { runnerDraft, runnerOfDraft } from './runner-draft'
import { RunnerFields } from './RunnerFields'

export function RunnerSettingsLink() {
  const runner = useApp((s) => s.workspaceSettings?.defaultRunner)
  if (!runner) return null
  return (
    <SettingsLink
      testId="runner-settings-open"
      title="Where the team's external agents run unless a member says otherwise"
      label={`Agents run on ${runnerText(runner)}`}
      dialog={(onClose) => <RunnerSettings onClose={onClose} />}
    />
  )
}

function RunnerSettings({ onClose }: { onClose(): void }) {
  const settings = useApp((s) => s.workspaceSettings)!
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const [draft, setDraft] = useState(() => runnerDraft(settings.defaultRunner))
  const save = useAction(async () => {
    const defaultRunner = runnerOfDraft(draft)
    if (!workspaceId || !defaultRunner) return
    const next = await api.call('workspaces.update', { workspaceId, defaultRunner })
    if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    onClose()
  })
  return (
    <ActionDialog title="Where agents run" onClose={onClose} action={save} testId="runner-settings-save">
      <p className="muted small">
        Where the team’s external agents (ACP) run when their settings name no runner of their own. Concord’s own loop
        always runs on this machine.
      </p>
      <RunnerFields draft={draft} onChange={setDraft} />
      <ErrorText error={save.error?.message} />
    </ActionDialog>
  )
}
