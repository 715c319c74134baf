import type { Dispatch, SetStateAction } from 'react'
import { policyLine } from '../../../../shared/approval-words'
import { ErrorText } from '../../components/ui'
import { rolePresets } from '../../lib/presets'
import { useApp } from '../../stores/app-store'

type Picked = Record<string, string>

/** One role preset: whether it is included, and the name its member gets. */
function PresetRow({
  preset: p,
  picked,
  setPicked,
}: {
  preset: (typeof rolePresets)[number]
  picked: Picked
  setPicked: Dispatch<SetStateAction<Picked>>
}) {
  const on = picked[p.role] !== undefined
  return (
    <div className={`preset${on ? ' on' : ''}`}>
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
}

/** Setup step 2: rename, untick or add the members before they are created. */
export function SetupTeamStage({
  picked,
  setPicked,
  count,
  creating,
  error,
  onBack,
  onCustom,
  onCreate,
}: {
  picked: Picked
  setPicked: Dispatch<SetStateAction<Picked>>
  count: number
  creating: boolean
  error: string | undefined
  onBack(): void
  onCustom(): void
  onCreate(): void
}) {
  const sandbox = useApp((s) => s.system?.sandbox)
  return (
    <>
      <h1>Who is on the team?</h1>
      <p className="muted">
        Each member is an agent with its own session, tools and authority over decisions. Rename or untick as you like.
      </p>
      <p className="small policy-line" data-testid="wizard-policy-line">
        <b>Without asking:</b> {policyLine(sandbox?.available === false ? 'ask' : 'sandboxed', sandbox)} You can change
        this per member in its settings.
      </p>
      <div className="preset-list">
        {rolePresets.map((p) => (
          <PresetRow key={p.role} preset={p} picked={picked} setPicked={setPicked} />
        ))}
      </div>
      <ErrorText error={error} />
      <div className="form-actions">
        <button className="btn" onClick={onBack}>
          Back
        </button>
        <button className="btn" onClick={onCustom}>
          Add a custom member…
        </button>
        <span className="spacer" />
        <button className="btn primary" disabled={count === 0 || creating} onClick={onCreate} data-testid="create-team">
          Create {count} member{count === 1 ? '' : 's'}
        </button>
      </div>
    </>
  )
}
