import { useState } from 'react'
import '../session/approvals.css'
import { policyLine } from '../../../../shared/approval-words'
import { ErrorText } from '../../components/ui'
import { draftFor, providerParam, providerPresets, rolePresets, type ProviderDraft } from '../../lib/presets'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { MemberEditor } from './MemberEditor'
import { ProviderFields } from './ProviderFields'
import { TeamOffer } from './TeamOffer'
import { CheckboxRow } from '../../components/CheckboxRow'

/** First run in a workspace: set up a provider, then create the team from role presets. */
export function SetupWizard() {
  const api = useApp((s) => s.api)
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const applyMember = useApp((s) => s.applyMember)
  const sandbox = useApp((s) => s.system?.sandbox)
  const selectMember = useApp((s) => s.selectMember)
  const [stage, setStage] = useState<'provider' | 'team'>('provider')
  const [draft, setDraft] = useState<ProviderDraft>(draftFor('openai'))
  const [skipProvider, setSkipProvider] = useState(false)
  const [picked, setPicked] = useState<Record<string, string>>(
    Object.fromEntries(rolePresets.map((p) => [p.role, p.name])),
  )
  const [custom, setCustom] = useState(false)

  const create = useAction(async () => {
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
          <>
            <h1>How should your team think?</h1>
            <p className="muted">
              Pick the model provider for the members you are about to create in <b>{workspace?.name}</b>. You can give
              each member its own provider later. Keys stay in the{' '}
              {typeof window.api === 'undefined'
                ? 'Concord server process'
                : 'app (encrypted with the system keychain)'}{' '}
              and are never shown again.
            </p>
            {!skipProvider && <ProviderFields draft={draft} onChange={setDraft} prefillModel />}
            <CheckboxRow checked={skipProvider} onChange={setSkipProvider}>
              Skip for now (members cannot talk until they have a provider)
            </CheckboxRow>
            <div className="form-actions">
              <button
                className="btn"
                disabled={!providerOk}
                onClick={() => setStage('team')}
                data-testid="provider-next"
                title="Rename, untick or add members before they are created"
              >
                Choose the team…
              </button>
              {/* The preset team in one click, on this provider: step 2 is only for changing it. */}
              <button
                className="btn primary"
                disabled={!providerOk || create.pending}
                onClick={() => void create.run()}
                data-testid="create-preset-team"
                title={`Creates ${rolePresets.map((p) => p.name).join(', ')} with this provider`}
              >
                Create the team
              </button>
            </div>
            <p className="muted small setup-team-line" data-testid="preset-team-line">
              The team: {rolePresets.map((p) => p.name).join(', ')}. Choose the team… to rename, untick or add members
              first.
            </p>
            <ErrorText error={create.error?.message} />
          </>
        ) : (
          <>
            <h1>Who is on the team?</h1>
            <p className="muted">
              Each member is an agent with its own session, tools and authority over decisions. Rename or untick as you
              like.
            </p>
            <p className="small policy-line" data-testid="wizard-policy-line">
              <b>Without asking:</b> {policyLine(sandbox?.available === false ? 'ask' : 'sandboxed', sandbox)} You can
              change this per member in its settings.
            </p>
            <div className="preset-list">
              {rolePresets.map((p) => {
                const on = picked[p.role] !== undefined
                return (
                  <div key={p.role} className={`preset${on ? ' on' : ''}`}>
                    <input
                      type="checkbox"
                      checked={on}
                      aria-label={`Include ${p.name}`}
                      onChange={(e) =>
                        setPicked((x) => ({
                          ...x,
                          [p.role]: e.target.checked ? p.name : (undefined as unknown as string),
                        }))
                      }
                    />
                    <div className="preset-main">
                      <input
                        className="preset-name"
                        value={picked[p.role] ?? p.name}
                        disabled={!on}
                        onChange={(e) => setPicked((x) => ({ ...x, [p.role]: e.target.value }))}
                        aria-label={`${p.role} name`}
                      />
                      <div className="muted small">
                        {p.role} · {p.authority} — {p.blurb}
                      </div>
                    </div>
                  </div>
                )
              })}
            </div>
            <ErrorText error={create.error?.message} />
            <div className="form-actions">
              <button className="btn" onClick={() => setStage('provider')}>
                Back
              </button>
              <button className="btn" onClick={() => setCustom(true)}>
                Add a custom member…
              </button>
              <span className="spacer" />
              <button
                className="btn primary"
                disabled={count === 0 || create.pending}
                onClick={() => void create.run()}
                data-testid="create-team"
              >
                Create {count} member{count === 1 ? '' : 's'}
              </button>
            </div>
          </>
        )}
      </div>
      {custom && <MemberEditor onClose={() => setCustom(false)} />}
    </div>
  )
}
