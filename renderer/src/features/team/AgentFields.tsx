import { Field } from '../../components/ui'
import { agentChoices, type AgentDraft } from '../../lib/presets'
import { CheckboxRow } from '../../components/CheckboxRow'

interface DraftProps {
  draft: AgentDraft
  onChange(d: AgentDraft): void
}

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
          <input
            type="number"
            min={1}
            max={1440}
            value={draft.turnTimeoutMinutes}
            onChange={(e) =>
              onChange({ ...draft, turnTimeoutMinutes: Math.min(1440, Math.max(1, Number(e.target.value) || 1)) })
            }
            aria-label="Turn timeout"
          />
        </Field>
      </div>
      <div className="form-grid">
        <Field label="Arguments" hint="One per line.">
          <textarea
            rows={2}
            value={draft.args}
            onChange={(e) => onChange({ ...draft, args: e.target.value })}
            aria-label="Agent arguments"
          />
        </Field>
        <Field
          label="Environment"
          hint="NAME=value, one per line; plain values only (the key goes below, never here or in the arguments)."
        >
          <textarea
            rows={2}
            value={draft.env}
            onChange={(e) => onChange({ ...draft, env: e.target.value })}
            aria-label="Agent environment"
          />
        </Field>
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

/** The agent's isolated home and whether an adjustment interrupts its running turn. */
function AgentSwitches({ draft, onChange }: DraftProps) {
  return (
    <>
      <CheckboxRow
        checked={draft.isolatedHome}
        onChange={(isolatedHome) => onChange({ ...draft, isolatedHome })}
        label="Isolated home"
        hint={
          <span className="muted small">
            {' '}
            (HOME and the agent’s config folder under Concord’s data folder, for this member only)
          </span>
        }
      >
        Isolated home
      </CheckboxRow>
      <CheckboxRow
        checked={draft.interruptOnAdjustment}
        onChange={(interruptOnAdjustment) => onChange({ ...draft, interruptOnAdjustment })}
        label="Interrupt and re-prompt"
        hint={
          <span className="muted small">
            {' '}
            (when a task it works on needs adjustment, stop the running turn and send the notice at once; otherwise it
            hears at its next Concord tool call or turn end)
          </span>
        }
      >
        Interrupt and re-prompt
      </CheckboxRow>
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
