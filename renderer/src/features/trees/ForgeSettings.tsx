/**
 * Where the workspace's pull requests go (forge.configure): the remote pushed to, GitHub's API base URL, and the token.
 * The token is write-only: the form says whether one is set, never what it is.
 */
import { useEffect, useState } from 'react'
import type { ForgeSettings as Settings } from '../../../../shared/schemas'
import { CheckboxRow } from '../../components/CheckboxRow'
import { ActionDialog } from '../../components/ActionDialog'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { SettingField, SettingsLink } from './SettingField'
import './trees.css'

export function ForgeSettingsLink() {
  const isolation = useApp((s) => s.workspaceSettings?.isolation)
  if (isolation !== 'worktree') return null
  return (
    <SettingsLink
      testId="forge-settings-open"
      title="The remote a task's branch is pushed to, and the GitHub token its pull request is opened with"
      label="Pull requests…"
      dialog={(onClose) => <ForgeSettings onClose={onClose} />}
    />
  )
}

function ForgeSettings({ onClose }: { onClose(): void }) {
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const [current, setCurrent] = useState<Settings | null>(null)
  const [remote, setRemote] = useState('')
  const [baseUrl, setBaseUrl] = useState('')
  const [token, setToken] = useState('')
  const [removeToken, setRemoveToken] = useState(false)
  const load = useAction(async () => {
    if (!workspaceId) return
    const s = await api.call('forge.configure', { workspaceId })
    setCurrent(s)
    setRemote(s.remote)
    setBaseUrl(s.baseUrl)
  })
  const loadRun = load.run
  useEffect(() => {
    void loadRun()
  }, [loadRun])
  const save = useAction(async () => {
    if (!workspaceId) return
    await api.call('forge.configure', {
      workspaceId,
      remote,
      baseUrl,
      ...(removeToken ? { token: null } : token.trim() ? { token } : {}),
    })
    onClose()
  })
  return (
    <ActionDialog
      title="Pull requests"
      onClose={onClose}
      action={save}
      disabled={!current}
      testId="forge-settings-save"
    >
      <div className="tree-settings" data-testid="forge-settings">
        <p className="muted small">
          “Push &amp; open PR” on a task’s card runs your own <code>git push</code> (your credentials; Concord reads
          none) and opens a pull request on GitHub with the task’s evidence.
        </p>
        <SettingField name="Remote" hint="Its URL names the GitHub repository (ssh or https).">
          <input type="text" value={remote} onChange={(e) => setRemote(e.target.value)} data-testid="forge-remote" />
        </SettingField>
        <SettingField name="GitHub API" hint="https://api.github.com, or your GitHub Enterprise’s API.">
          <input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} data-testid="forge-base-url" />
        </SettingField>
        <SettingField
          name="Token"
          hint="Kept in Concord’s secret store; never shown again, logged or given to a member."
        >
          <input
            type="password"
            value={token}
            autoComplete="off"
            onChange={(e) => setToken(e.target.value)}
            placeholder={current?.hasToken ? 'set — leave empty to keep it' : 'a token that may open pull requests'}
            data-testid="forge-token"
          />
        </SettingField>
        {current?.hasToken && (
          <CheckboxRow className="check small" checked={removeToken} onChange={setRemoveToken}>
            Remove the token
          </CheckboxRow>
        )}
        <ErrorText error={load.error?.message ?? save.error?.message} />
      </div>
    </ActionDialog>
  )
}
