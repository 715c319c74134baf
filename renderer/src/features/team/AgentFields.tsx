import { Field } from '../../components/ui'
import { agentChoices, type AgentDraft } from '../../lib/presets'
import { BoundedNumber } from '../../components/BoundedNumber'
import { CheckboxRow } from '../../components/CheckboxRow'

interface DraftProps {
  draft: AgentDraft
  onChange(d: AgentDraft): void
}

/** The agent's list fields: one item a line. */
const listFields = [
  { key: 'args', label: 'Arguments', hint: 'One per line.', aria: 'Agent arguments' },
  {
    key: 'env',
    label: 'Environment',
    hint: 'NAME=value, one per line; plain values only (the key goes below, never here or in the arguments).',
    aria: 'Agent environment',
  },
] as const

/** How the agent is started: command, turn timeout, arguments and environment. */
function AgentRunFields({ draft, onChange }: DraftProps) {
  const custom = draft.agent === 'custom'
  return (
    <>
      <div className="form-grid">
        <Field
          label={custom ? 'Command' : 'Command (optional)'}
          hint={custom ? undefined : 'Leave empty for the installed adapter.'}
        >
          <input
            value={draft.command}
            placeholder={custom ? '/path/to/acp-agent' : ''}
            onChange={(e) => onChange({ ...draft, command: e.target.value })}
            aria-label="Agent command"
          />
        </Field>
        <Field
          label="Turn timeout (minutes)"
          hint="Concord stops a turn that runs longer (some agents retry a dead model endpoint forever)."
        >
          <BoundedNumber
            value={draft.turnTimeoutMinutes}
            min={1}
            max={1440}
            onChange={(turnTimeoutMinutes) => onChange({ ...draft, turnTimeoutMinutes })}
            label="Turn timeout"
          />
        </Field>
      </div>
      <div className="form-grid">
        {listFields.map((f) => (
          <Field key={f.key} label={f.label} hint={f.hint}>
            <textarea
              rows={2}
              value={draft[f.key]}
              onChange={(e) => onChange({ ...draft, [f.key]: e.target.value })}
              aria-label={f.aria}
            />
          </Field>
        ))}
      </div>
    </>
  )
}

/** The agent's key, and for a custom agent the variable it reads it from. */
function AgentKeyFields({ draft, onChange, hasKey }: DraftProps & { hasKey?: boolean }) {
  const custom = draft.agent === 'custom'
  const keyVariable = custom ? draft.keyVariable.trim() : agentChoices[draft.agent].keyVariable
  return (
    <div className="form-grid">
      <Field
        label="API key (optional)"
        hint={`${hasKey ? 'A key is stored. Leave empty to keep it. ' : ''}Without one the agent uses its own login.${keyVariable ? ` Passed only to this agent as ${keyVariable}.` : ''}`}
      >
        <input
          type="password"
          autoComplete="off"
          value={draft.apiKey}
          placeholder={hasKey ? '•••••••• (stored)' : ''}
          onChange={(e) => onChange({ ...draft, apiKey: e.target.value })}
          aria-label="Agent API key"
        />
      </Field>
      {custom && (
        <Field
          label="Key variable"
          hint="The environment variable the agent reads its key from (its documentation names it). The key stays in Concord’s secret store and is set only in this agent’s process."
        >
          <input
            value={draft.keyVariable}
            placeholder="OPENAI_API_KEY"
            spellCheck={false}
            onChange={(e) => onChange({ ...draft, keyVariable: e.target.value })}
            aria-label="Key variable"
          />
        </Field>
      )}
    </div>
  )
}

/** The agent's switches: its isolated home, and whether an adjustment interrupts its running turn. */
const switches = [
  {
    key: 'isolatedHome',
    label: 'Isolated home',
    hint: '(HOME and the agent’s config folder under Concord’s data folder, for this member only)',
  },
  {
    key: 'interruptOnAdjustment',
    label: 'Interrupt and re-prompt',
    hint: '(when a task it works on needs adjustment, stop the running turn and send the notice at once; otherwise it hears at its next Concord tool call or turn end)',
  },
] as const

function AgentSwitches({ draft, onChange }: DraftProps) {
  return (
    <>
      {switches.map((s) => (
        <CheckboxRow
          key={s.key}
          checked={draft[s.key]}
          onChange={(on) => onChange({ ...draft, [s.key]: on })}
          label={s.label}
          hint={<span className="muted small"> {s.hint}</span>}
        >
          {s.label}
        </CheckboxRow>
      ))}
    </>
  )
}

/** An external agent's settings: its install line, command override, arguments, environment, key, home and turn rules. */
export function AgentFields({ draft, onChange, hasKey }: DraftProps & { hasKey?: boolean }) {
  const choice = agentChoices[draft.agent]
  return (
    <div className="provider-fields" data-testid="agent-fields">
      {choice.install && (
        <div className="small" data-testid="agent-install">
          Install: <code>{choice.install}</code>
        </div>
      )}
      <AgentRunFields draft={draft} onChange={onChange} />
      <AgentKeyFields draft={draft} onChange={onChange} hasKey={hasKey} />
      <AgentSwitches draft={draft} onChange={onChange} />
    </div>
  )
}
