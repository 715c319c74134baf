import { Field } from '../../components/ui'
import { draftFor, providerPresets, type ProviderDraft, type ProviderKind } from '../../lib/presets'

/** Provider kind, model, base URL and a write-only key. The key field is never pre-filled. */
export function ProviderFields({ draft, onChange, hasKey }: { draft: ProviderDraft; onChange(d: ProviderDraft): void; hasKey?: boolean }) {
  const preset = providerPresets[draft.kind]
  return (
    <div className="provider-fields">
      <div className="segmented" role="radiogroup" aria-label="Provider">
        {(Object.keys(providerPresets) as ProviderKind[]).map((k) => (
          <button
            key={k}
            type="button"
            role="radio"
            aria-checked={draft.kind === k}
            className={draft.kind === k ? 'on' : ''}
            onClick={() => onChange({ ...draftFor(k), apiKey: draft.apiKey })}
          >
            {providerPresets[k].label}
          </button>
        ))}
      </div>
      <div className="muted small">{preset.hint}</div>
      <div className="form-grid">
        <Field label="Model">
          <input value={draft.model} onChange={(e) => onChange({ ...draft, model: e.target.value })} aria-label="Model" />
        </Field>
        <Field label={draft.kind === 'openai-compatible' ? 'Base URL' : 'Base URL (optional)'}>
          <input
            value={draft.baseURL}
            placeholder={draft.kind === 'openai-compatible' ? 'http://127.0.0.1:11434/v1' : 'default endpoint'}
            onChange={(e) => onChange({ ...draft, baseURL: e.target.value })}
            aria-label="Base URL"
          />
        </Field>
      </div>
      <Field
        label={preset.needsKey ? 'API key' : 'API key (optional)'}
        hint={hasKey ? 'A key is stored. Leave empty to keep it; type a new one to replace it.' : 'Stored encrypted by the app; never shown again.'}
      >
        <input
          type="password"
          autoComplete="off"
          value={draft.apiKey}
          placeholder={hasKey ? '•••••••• (stored)' : preset.needsKey ? 'sk-…' : ''}
          onChange={(e) => onChange({ ...draft, apiKey: e.target.value })}
          aria-label="API key"
        />
      </Field>
    </div>
  )
}
