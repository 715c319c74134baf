/** "Runs on": this machine, an SSH host or a container, with what each guarantees (issue 36). */
import { runnerText, type Runner } from '../../../../shared/runners'
import { Segmented } from '../../components/Segmented'
import { Field } from '../../components/ui'
import type { RunnerChoice, RunnerDraft } from './runner-draft'
import { SshHostField } from './SshHostField'

/** What each choice promises, in one line. */
const guarantees: Record<Runner['kind'], string> = {
  local: 'The tree and agent live on this machine, in Concord’s OS sandbox where it works.',
  ssh: 'The tree and agent live on the host; keys are passed on the connection, never written there.',
  container: 'The container is the sandbox: the tree and agent live in it.',
}

const labels: Record<RunnerChoice, string> = {
  default: 'Workspace default',
  local: 'This machine',
  ssh: 'SSH host',
  container: 'Container',
}

/**
 * The runner a member or the workspace runs on. `workspaceDefault` given (the member editor): a first choice that
 * names no runner and follows the workspace's. `agentCommand`: the member's agent, which the SSH host's Check asks
 * about too.
 */
export function RunnerFields({
  draft,
  onChange,
  workspaceDefault,
  agentCommand,
}: {
  draft: RunnerDraft
  onChange(d: RunnerDraft): void
  workspaceDefault?: Runner
  agentCommand?: string
}) {
  const choices: RunnerChoice[] = workspaceDefault
    ? ['default', 'local', 'ssh', 'container']
    : ['local', 'ssh', 'container']
  const kind = draft.choice === 'default' ? (workspaceDefault?.kind ?? 'local') : draft.choice
  return (
    <div className="field runner-fields" data-testid="runner-fields">
      <span className="field-label">Runs on</span>
      <Segmented
        label="Runs on"
        options={choices}
        value={draft.choice}
        labelOf={(c) =>
          c === 'default' && workspaceDefault ? `${labels.default} (${runnerText(workspaceDefault)})` : labels[c]
        }
        onChange={(choice) => onChange({ ...draft, choice })}
      />
      {draft.choice === 'ssh' && (
        <SshHostField host={draft.host} agent={agentCommand} onChange={(host) => onChange({ ...draft, host })} />
      )}
      {draft.choice === 'container' && (
        <Field
          label="Container image"
          hint="An image reference as podman knows it: debian:bookworm, docker.io/library/node:22."
        >
          <input
            value={draft.image}
            placeholder="debian:bookworm"
            spellCheck={false}
            onChange={(e) => onChange({ ...draft, image: e.target.value })}
            aria-label="Container image"
          />
        </Field>
      )}
      <div className="muted small" data-testid="runner-hint">
        {guarantees[kind]}
      </div>
    </div>
  )
}
