import { useEffect, useState } from 'react'
import { providerKinds } from '../../../../shared/enums'
import type { SystemInfo } from '../../../../shared/schemas'
import { Segmented } from '../../components/Segmented'
import { Field } from '../../components/ui'
import { draftFor, providerPresets, type ProviderDraft } from '../../lib/presets'
import { useApp } from '../../stores/app-store'

/** Where the core keeps keys (system.info), so the key field says it truthfully: encrypted or a plain 0600 file. */
function useKeyStorage(): SystemInfo['secrets'] | null {
  const api = useApp((s) => s.api)
  const [secrets, setSecrets] = useState<SystemInfo['secrets'] | null>(null)
  useEffect(() => {
    let live = true
    api.call('system.info', {}).then(
      (info) => live && setSecrets(info.secrets),
      () => {},
    )
    return () => {
      live = false
    }
  }, [api])
  return secrets
}

/**
 * The models the server at a local / OpenAI-compatible base URL lists (providers.models, asked by Concord once the
 * URL has settled); none for the other kinds, an unfinished URL or a server that does not answer.
 */
function useListedModels(draft: ProviderDraft): string[] {
  const api = useApp((s) => s.api)
  const [listed, setListed] = useState<{ for: string; models: string[] } | null>(null)
  const baseURL = draft.baseURL.trim()
  const apiKey = draft.apiKey.trim()
  const asks = draft.kind === 'openai-compatible' && /^https?:\/\/\S+$/.test(baseURL)
  const key = JSON.stringify([baseURL, apiKey])
  useEffect(() => {
    if (!asks) return
    let live = true
    const t = setTimeout(() => {
      api.call('providers.models', { baseURL, ...(apiKey ? { apiKey } : {}) }).then(
        (r) => live && setListed({ for: key, models: r.models }),
        () => live && setListed({ for: key, models: [] }),
      )
    }, 400)
    return () => {
      live = false
      clearTimeout(t)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, asks, key])
  return asks && listed?.for === key ? listed.models : []
}

/** A new provider's model (the setup): the preset's gives way to the first one the server lists, once it arrives. */
function usePrefilledModel(draft: ProviderDraft, onChange: (d: ProviderDraft) => void, models: string[], on?: boolean) {
  const first = models[0]
  useEffect(() => {
    if (on && first && draft.model === providerPresets[draft.kind].model && !models.includes(draft.model))
      onChange({ ...draft, model: first })
    // Only when the list arrives: a model typed afterwards is the user's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [models])
}

/** Provider kind, model, base URL and a write-only key. The key field is never pre-filled. */
export function ProviderFields({
  draft,
  onChange,
  hasKey,
  focusKey,
  prefillModel,
}: {
  draft: ProviderDraft
  onChange(d: ProviderDraft): void
  hasKey?: boolean
  /** Opened to fix a refused key: the key field takes the focus. */
  focusKey?: boolean
  /** A new provider (the setup): the preset's model gives way to the first one the server lists. */
  prefillModel?: boolean
}) {
  return (
    <div className="provider-fields">
      <Segmented
        label="Provider"
        options={providerKinds}
        value={draft.kind}
        labelOf={(k) => providerPresets[k].label}
        onChange={(k) => onChange({ ...draftFor(k), apiKey: draft.apiKey })}
      />
      <div className="muted small">{providerPresets[draft.kind].hint}</div>
      <div className="form-grid">
        <ModelField draft={draft} onChange={onChange} prefill={prefillModel} />
        <Field label={draft.kind === 'openai-compatible' ? 'Base URL' : 'Base URL (optional)'}>
          <input
            value={draft.baseURL}
            placeholder={draft.kind === 'openai-compatible' ? 'http://127.0.0.1:11434/v1' : 'default endpoint'}
            onChange={(e) => onChange({ ...draft, baseURL: e.target.value })}
            aria-label="Base URL"
          />
        </Field>
      </div>
      <ProviderKeyField draft={draft} onChange={onChange} hasKey={hasKey} focusKey={focusKey} />
    </div>
  )
}

interface DraftProps {
  draft: ProviderDraft
  onChange(d: ProviderDraft): void
}

/** The model, offered from what the server at the base URL lists (a few named under the field). */
function ModelField({ draft, onChange, prefill }: DraftProps & { prefill?: boolean }) {
  const models = useListedModels(draft)
  usePrefilledModel(draft, onChange, models, prefill)
  return (
    <Field
      label="Model"
      hint={
        models.length > 0 ? (
          <span data-testid="listed-models">
            Listed at this URL: {models.slice(0, 4).join(', ')}
            {models.length > 4 ? ` and ${models.length - 4} more` : ''}
          </span>
        ) : undefined
      }
    >
      <input
        value={draft.model}
        onChange={(e) => onChange({ ...draft, model: e.target.value })}
        aria-label="Model"
        list={models.length > 0 ? 'listed-models' : undefined}
      />
      {models.length > 0 && (
        <datalist id="listed-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      )}
    </Field>
  )
}

/** The write-only key: whether one is stored, and where the core keeps keys. */
function ProviderKeyField({
  draft,
  onChange,
  hasKey,
  focusKey,
}: DraftProps & { hasKey?: boolean; focusKey?: boolean }) {
  const preset = providerPresets[draft.kind]
  const keyStorage = useKeyStorage()
  return (
    <Field
      label={preset.needsKey ? 'API key' : 'API key (optional)'}
      hint={
        <>
          {hasKey ? 'A key is stored. Leave empty to keep it; type a new one to replace it.' : 'Never shown again.'}
          {keyStorage && (
            <span className={keyStorage.encrypted ? undefined : 'warn-text'}>
              {' '}
              Keys are kept {keyStorage.description}.
            </span>
          )}
        </>
      }
    >
      <input
        type="password"
        autoComplete="off"
        value={draft.apiKey}
        placeholder={hasKey ? '•••••••• (stored)' : preset.needsKey ? 'sk-…' : ''}
        onChange={(e) => onChange({ ...draft, apiKey: e.target.value })}
        aria-label="API key"
        data-autofocus={focusKey || undefined}
      />
    </Field>
  )
}
