import { useState } from 'react'
import '../session/approvals.css'
import { draftFor, providerParam, providerPresets, rolePresets, type ProviderDraft } from '../../lib/presets'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { MemberEditor } from './MemberEditor'
import { SetupProviderStage } from './SetupProviderStage'
import { SetupTeamStage } from './SetupTeamStage'
import { TeamOffer } from './TeamOffer'

/** Creates the picked members, on the drafted provider unless skipped, and selects the first. */
function useCreateTeam(picked: Record<string, string>, draft: ProviderDraft, skipProvider: boolean) {
  const api = useApp((s) => s.api)
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const applyMember = useApp((s) => s.applyMember)
  const selectMember = useApp((s) => s.selectMember)
  return useAction(async () => {
    let first: string | null = null
    for (const p of rolePresets) {
      const name = picked[p.role]
      if (name === undefined || !name.trim()) continue
      const m = await api.call('members.create', {
        workspaceId: workspace!.id,
        name: name.trim(),
        role: p.role,
        authority: p.authority,
        // No approval: each member gets Concord's default (sandboxed where the OS sandbox works, else ask).
        instructions: p.instructions,
        ...(skipProvider ? {} : { provider: providerParam(draft) }),
      })
      applyMember(m)
      first ??= m.id
    }
    if (first) selectMember(first)
  })
}

/** First run in a workspace: set up a provider, then create the team from role presets. */
export function SetupWizard() {
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const [stage, setStage] = useState<'provider' | 'team'>('provider')
  const [draft, setDraft] = useState<ProviderDraft>(draftFor('openai'))
  const [skipProvider, setSkipProvider] = useState(false)
  const [picked, setPicked] = useState<Record<string, string>>(
    Object.fromEntries(rolePresets.map((p) => [p.role, p.name])),
  )
  const [custom, setCustom] = useState(false)
  const create = useCreateTeam(picked, draft, skipProvider)

  const providerOk =
    skipProvider ||
    (draft.model.trim() &&
      (providerPresets[draft.kind].needsKey ? draft.apiKey.trim() || draft.baseURL.trim() : draft.baseURL.trim()))
  const count = Object.values(picked).filter((n) => n?.trim()).length

  return (
    <div className="setup" data-testid="setup">
      <div className="setup-card">
        {/* Another workspace's team, in one click: the alternative to both steps below. */}
        {stage === 'provider' && workspace && <TeamOffer workspaceId={workspace.id} />}
        <div className="setup-steps">
          <span className={stage === 'provider' ? 'on' : 'done'}>1 · Provider</span>
          <span className={stage === 'team' ? 'on' : ''}>2 · Team</span>
        </div>
        {stage === 'provider' ? (
          <SetupProviderStage
            workspaceName={workspace?.name}
            draft={draft}
            setDraft={setDraft}
            skipProvider={skipProvider}
            setSkipProvider={setSkipProvider}
            providerOk={!!providerOk}
            creating={create.pending}
            error={create.error?.message}
            onNext={() => setStage('team')}
            onCreate={() => void create.run()}
          />
        ) : (
          <SetupTeamStage
            picked={picked}
            setPicked={setPicked}
            count={count}
            creating={create.pending}
            error={create.error?.message}
            onBack={() => setStage('provider')}
            onCustom={() => setCustom(true)}
            onCreate={() => void create.run()}
          />
        )}
      </div>
      {custom && <MemberEditor onClose={() => setCustom(false)} />}
    </div>
  )
}
