import '../session/approvals.css'
import { useState } from 'react'
import { policyLabel, policyLine } from '../../../../shared/approval-words'
import { LOCAL_RUNNER } from '../../../../shared/runners'
import type { Member } from '../../../../shared/schemas'
import { CheckboxRow } from '../../components/CheckboxRow'
import { ActionDialog } from '../../components/ActionDialog'
import { BoundedNumber } from '../../components/BoundedNumber'
import { SelectOne } from '../../components/SelectOne'
import { Segmented } from '../../components/Segmented'
import { ErrorText, Field } from '../../components/ui'
import { agentChoices, agentCommandOf, rolePresets, type AgentChoice } from '../../lib/presets'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { AgentFields } from './AgentFields'
import { useMemberDraft, type MemberDraft } from './member-draft'
import { MemberMcpServers } from './MemberMcpServers'
import { MemberRules, SandboxNote } from './MemberRules'
import { ProviderFields } from './ProviderFields'
import { runnerOfDraft } from './runner-draft'
import { RunnerFields } from './RunnerFields'

/** Creates a member (from a role preset or from scratch) or edits one. */
export function MemberEditor({
  member,
  fixing,
  onClose,
}: {
  member?: Member
  /** Opened from "Fix in settings": the error the member stopped on, said above the fields. */
  fixing?: string
  onClose(): void
}) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const applyMember = useApp((s) => s.applyMember)
  const selectMember = useApp((s) => s.selectMember)
  const d = useMemberDraft(member)
  const [mcpOff, setMcpOff] = useState(member?.mcpOff ?? [])
  const save = useAction(async () => {
    const common = { ...d.fields, name: d.name.trim(), role: d.role.trim() }
    // Only an external agent runs on a runner yet; Concord's own loop names none (the server refuses one).
    const runner = d.useProvider && d.choice !== 'concord' ? runnerOfDraft(d.runner) : null
    const saved = member
      ? await api.call('members.update', {
          memberId: member.id,
          ...common,
          mcpOff,
          runner,
          provider: d.useProvider ? d.providerInput() : null,
        })
      : await api.call('members.create', {
          workspaceId,
          ...common,
          ...(d.useProvider ? { provider: d.providerInput() } : {}),
          ...(runner ? { runner } : {}),
        })
    applyMember(saved)
    if (!member) selectMember(saved.id)
    onClose()
  })
  return (
    <ActionDialog
      title={member ? `${member.name}’s settings` : 'Add a member'}
      onClose={onClose}
      wide
      action={save}
      confirmLabel={member ? 'Save' : 'Add member'}
      disabled={!d.name.trim() || !d.role.trim()}
      testId="save-member"
    >
      {!member && <PresetRow role={d.role} onPick={d.applyPreset} />}
      <MemberNameFields d={d} />
      <MemberPolicyFields d={d} />
      {member && <MemberRules member={member} />}
      {member && <MemberMcpServers member={member} off={mcpOff} onChange={setMcpOff} />}
      <SandboxNote />
      {/* Beside the fields that fix it (the key field has the focus, so this part is what shows). */}
      {fixing && (
        <div className="settings-fix" role="alert" data-testid="settings-fix">
          <b>{member?.name} stopped:</b> {fixing}
          <div className="small">Saving sends the message that failed again, then what is queued behind it.</div>
        </div>
      )}
      <CheckboxRow checked={d.useProvider} onChange={d.setUseProvider}>
        Agent and model
      </CheckboxRow>
      {d.useProvider && <AgentSection d={d} member={member} fixing={fixing} />}
      <ErrorText error={save.error?.message} />
    </ActionDialog>
  )
}

/** A new member's shortcut: the role presets, one chip each. */
function PresetRow({ role, onPick }: { role: string; onPick(role: string): void }) {
  return (
    <div className="preset-row">
      <span className="muted small">Start from a role:</span>
      {rolePresets.map((p) => (
        <button key={p.role} className={`chip${role === p.role ? ' on' : ''}`} onClick={() => onPick(p.role)}>
          {p.name}
        </button>
      ))}
    </div>
  )
}

/** Who the member is: name, role, instructions. */
function MemberNameFields({ d }: { d: MemberDraft }) {
  return (
    <>
      <div className="form-grid">
        <Field label="Name">
          <input value={d.name} onChange={(e) => d.setName(e.target.value)} aria-label="Name" />
        </Field>
        <Field label="Role">
          <input
            value={d.role}
            onChange={(e) => d.setRole(e.target.value)}
            aria-label="Role"
            placeholder="implementer, tester, …"
          />
        </Field>
      </div>
      <Field label="Instructions">
        <textarea
          value={d.instructions}
          onChange={(e) => d.setInstructions(e.target.value)}
          rows={4}
          aria-label="Instructions"
        />
      </Field>
    </>
  )
}

/** The choices of the authority and approval selects, in the order they are offered. */
const authorities = (['observer', 'proposer', 'decider'] as const).map(
  (a): { value: Member['authority']; text: string } => ({
    value: a,
    text: a,
  }),
)
/** In the order of how much the member may do without asking. */
const approvalPolicies = (['sandboxed', 'ask', 'auto'] as const).map(
  (p): { value: Member['approval']; text: string } => ({
    value: p,
    text: policyLabel[p],
  }),
)

/** What the member may do: authority, approval policy, step limits, the network, and that policy in words. */
function MemberPolicyFields({ d }: { d: MemberDraft }) {
  return (
    <>
      <div className="form-grid three">
        <Field
          label="Authority over decisions"
          hint="Observer reads; proposer proposes; decider may change accepted decisions."
        >
          <SelectOne value={d.authority} options={authorities} onChange={d.setAuthority} label="Authority" />
        </Field>
        <Field
          label="Approval"
          hint="When this member waits for you before a tool call. Rules below (made with “Always…” on a call) allow or deny one kind of call."
        >
          <SelectOne value={d.approval} options={approvalPolicies} onChange={d.setApproval} label="Approval policy" />
        </Field>
        <Field label="Max steps per turn">
          <input
            type="number"
            min={1}
            max={1000}
            value={d.maxSteps}
            onChange={(e) => d.setMaxSteps(Math.max(1, Number(e.target.value) || 1))}
            aria-label="Max steps"
          />
        </Field>
      </div>
      <MemberCommandFields d={d} />
    </>
  )
}

/** How the member's turns and commands run: its planning interval, the network, and the policy in words. */
function MemberCommandFields({ d }: { d: MemberDraft }) {
  return (
    <>
      <Field
        label="Plan every N steps"
        hint="A planning step (facts, what is left, next steps) every N steps of a turn; 0 never plans."
      >
        <BoundedNumber
          value={d.planningInterval}
          min={0}
          max={100}
          onChange={d.setPlanningInterval}
          label="Planning interval"
        />
      </Field>
      <CheckboxRow
        checked={d.network}
        onChange={d.setNetwork}
        label="Network for commands"
        hint={<span className="muted small"> (off: commands run with no network)</span>}
      >
        Commands may use the network
      </CheckboxRow>
      <div className="small policy-line" data-testid="policy-line">
        <b>Without asking:</b> {policyLine(d.approval, d.sandbox, d.network)}
      </div>
      {d.choice === 'custom' && d.approval === 'ask' && (
        <div className="small warn-inline" data-testid="ask-read-only">
          Concord cannot make a custom agent ask before it writes (some never do), so under ask its tree is read-only.
          Choose sandboxed or auto to let it write.
        </div>
      )}
    </>
  )
}

/** The member's agent: Concord's own loop (a provider and model) or an external agent, with their fields. */
function AgentSection({ d, member, fixing }: { d: MemberDraft; member?: Member; fixing?: string }) {
  const team = d.teamProvider
  const defaultRunner = useApp((s) => s.workspaceSettings?.defaultRunner) ?? LOCAL_RUNNER
  return (
    <>
      <Segmented
        label="Agent"
        options={Object.keys(agentChoices) as AgentChoice[]}
        value={d.choice}
        labelOf={(c) => agentChoices[c].label}
        onChange={d.chooseAgent}
      />
      <div className="muted small">{agentChoices[d.choice].hint}</div>
      {team && (
        <div className="muted small" data-testid="team-provider-note">
          Starts from what most of your team uses (
          {team.kind === 'acp' ? agentChoices[team.agent].label : `${team.kind} · ${team.model}`}
          ). Keys are not copied between members: enter this member’s key if it needs one.
        </div>
      )}
      {d.choice === 'concord' ? (
        <>
          <ProviderFields
            draft={d.draft}
            onChange={d.setDraft}
            hasKey={member?.provider?.kind !== 'acp' ? member?.provider?.hasKey : false}
            focusKey={!!fixing}
          />
          <CheckboxRow
            checked={d.interrupt}
            onChange={d.setInterrupt}
            label="Interrupt and re-prompt"
            hint={
              <span className="muted small" data-testid="interrupt-hint">
                {d.interrupt
                  ? ' (when a task it works on needs adjustment, its running command or model call is stopped and it re-plans with the notice at once)'
                  : ' (off: it hears of changes after its running command ends)'}
              </span>
            }
          >
            Interrupt and re-prompt
          </CheckboxRow>
        </>
      ) : (
        <>
          <AgentFields
            draft={d.agentDraft}
            onChange={d.setAgentDraft}
            hasKey={member && d.acp?.agent === d.choice ? d.acp.hasKey : false}
          />
          <RunnerFields
            draft={d.runner}
            onChange={d.setRunner}
            workspaceDefault={defaultRunner}
            agentCommand={agentCommandOf(d.agentDraft)}
          />
        </>
      )}
      {d.choice === 'concord' && (
        <div className="muted small" data-testid="runner-local-only">
          Runs on this machine: only external agents run on an SSH host or in a container yet.
        </div>
      )}
    </>
  )
}
