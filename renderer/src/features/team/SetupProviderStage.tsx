import type { Dispatch, SetStateAction } from 'react'
import { ErrorText } from '../../components/ui'
import { CheckboxRow } from '../../components/CheckboxRow'
import { rolePresets, type ProviderDraft } from '../../lib/presets'
import { ProviderFields } from './ProviderFields'

/** Setup step 1: the provider for the members about to be created, or the preset team in one click. */
export function SetupProviderStage({
  workspaceName,
  draft,
  setDraft,
  skipProvider,
  setSkipProvider,
  providerOk,
  creating,
  error,
  onNext,
  onCreate,
}: {
  workspaceName: string | undefined
  draft: ProviderDraft
  setDraft: Dispatch<SetStateAction<ProviderDraft>>
  skipProvider: boolean
  setSkipProvider: (v: boolean) => void
  providerOk: boolean
  creating: boolean
  error: string | undefined
  onNext(): void
  onCreate(): void
}) {
  return (
    <>
      <h1>How should your team think?</h1>
      <p className="muted">
        Pick the model provider for the members you are about to create in <b>{workspaceName}</b>. You can give each
        member its own provider later. Keys stay in the{' '}
        {typeof window.api === 'undefined' ? 'Concord server process' : 'app (encrypted with the system keychain)'} and
        are never shown again.
      </p>
      {!skipProvider && <ProviderFields draft={draft} onChange={setDraft} prefillModel />}
      <CheckboxRow checked={skipProvider} onChange={setSkipProvider}>
        Skip for now (members cannot talk until they have a provider)
      </CheckboxRow>
      <div className="form-actions">
        <button
          className="btn"
          disabled={!providerOk}
          onClick={onNext}
          data-testid="provider-next"
          title="Rename, untick or add members before they are created"
        >
          Choose the team…
        </button>
        {/* The preset team in one click, on this provider: step 2 is only for changing it. */}
        <button
          className="btn primary"
          disabled={!providerOk || creating}
          onClick={onCreate}
          data-testid="create-preset-team"
          title={`Creates ${rolePresets.map((p) => p.name).join(', ')} with this provider`}
        >
          Create the team
        </button>
      </div>
      <p className="muted small setup-team-line" data-testid="preset-team-line">
        The team: {rolePresets.map((p) => p.name).join(', ')}. Choose the team… to rename, untick or add members first.
      </p>
      <ErrorText error={error} />
    </>
  )
}
