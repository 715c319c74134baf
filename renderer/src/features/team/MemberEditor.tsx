import { useEffect, useState } from 'react'
import '../session/approvals.css'
import { policyLabel, policyLine, ruleTarget, ruleWords } from '../../../../shared/approval-words'
import type { ApprovalRule, Member } from '../../../../shared/schemas'
import { ErrorText, Field, Modal } from '../../components/ui'
import {
  agentChoices,
  agentDraftFor,
  agentParam,
  draftFor,
  providerParam,
  rolePresets,
  type AgentChoice,
  type AgentDraft,
  type ProviderDraft,
} from '../../lib/presets'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { AgentFields } from './AgentFields'
import { ProviderFields } from './ProviderFields'

/** The provider most members of the workspace use (kind, model, base URL or agent): where a new member starts. */
export function workspaceProvider(members: Member[]): NonNullable<Member['provider']> | null {
  const counts = new Map<string, { n: number; provider: NonNullable<Member['provider']> }>()
  for (const m of members) {
    if (!m.provider) continue
    const key =
      m.provider.kind === 'acp'
        ? `acp:${m.provider.agent}:${m.provider.command ?? ''}`
        : `${m.provider.kind}:${m.provider.model}:${m.provider.baseURL ?? ''}`
    const c = counts.get(key)
    counts.set(key, { n: (c?.n ?? 0) + 1, provider: c?.provider ?? m.provider })
  }
  let best: { n: number; provider: NonNullable<Member['provider']> } | null = null
  for (const c of counts.values()) if (!best || c.n > best.n) best = c
  return best?.provider ?? null
}

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
  // A new member starts from the team's provider, not from a fixed default.
  const members = useApp((s) => s.members)
  const [teamProvider] = useState(() => (member ? null : workspaceProvider(Object.values(members))))
  const start = member?.provider ?? teamProvider
  const applyMember = useApp((s) => s.applyMember)
  const selectMember = useApp((s) => s.selectMember)
  const [name, setName] = useState(member?.name ?? '')
  const [role, setRole] = useState(member?.role ?? '')
  const [instructions, setInstructions] = useState(member?.instructions ?? '')
  const [authority, setAuthority] = useState<Member['authority']>(member?.authority ?? 'proposer')
  const sandbox = useApp((s) => s.system?.sandbox)
  // A new member starts where Concord would put it: sandboxed where the OS sandbox works, else ask.
  const [approval, setApproval] = useState<Member['approval']>(
    member?.approval ?? (sandbox?.available === false ? 'ask' : 'sandboxed'),
  )
  const [maxSteps, setMaxSteps] = useState(member?.maxSteps ?? 30)
  const [planningInterval, setPlanningInterval] = useState(member?.planningInterval ?? 0)
  const [network, setNetwork] = useState(member?.network ?? false)
  const [useProvider, setUseProvider] = useState(member ? !!member.provider : true)
  const [draft, setDraft] = useState<ProviderDraft>(
    start && start.kind !== 'acp'
      ? { kind: start.kind, model: start.model, baseURL: start.baseURL ?? '', apiKey: '' }
      : draftFor('openai'),
  )
  const acp = start?.kind === 'acp' ? start : undefined
  const [choice, setChoice] = useState<AgentChoice>(acp?.agent ?? 'concord')
  const [agentDraft, setAgentDraft] = useState<AgentDraft>(agentDraftFor(acp?.agent ?? 'claude-code', acp))
  const chooseAgent = (c: AgentChoice) => {
    setChoice(c)
    if (c !== 'concord')
      setAgentDraft({ ...(acp?.agent === c ? agentDraftFor(c, acp) : agentDraftFor(c)), apiKey: agentDraft.apiKey })
  }
  const [interrupt, setInterrupt] = useState(
    member?.provider && member.provider.kind !== 'acp' ? member.provider.interruptOnAdjustment : false,
  )
  const providerInput = () =>
    choice === 'concord' ? { ...providerParam(draft), interruptOnAdjustment: interrupt } : agentParam(agentDraft)

  const applyPreset = (role: string) => {
    const p = rolePresets.find((r) => r.role === role)
    if (!p) return
    setRole(p.role)
    if (!name.trim()) setName(p.name)
    setInstructions(p.instructions)
    setAuthority(p.authority)
  }

  const save = useAction(async () => {
    const common = {
      name: name.trim(),
      role: role.trim(),
      instructions,
      authority,
      approval,
      maxSteps,
      planningInterval,
      network,
    }
    const saved = member
      ? await api.call('members.update', {
          memberId: member.id,
          ...common,
          provider: useProvider ? providerInput() : null,
        })
      : await api.call('members.create', {
          workspaceId,
          ...common,
          ...(useProvider ? { provider: providerInput() } : {}),
        })
    applyMember(saved)
    if (!member) selectMember(saved.id)
    onClose()
  })

  return (
    <Modal
      title={member ? `${member.name}’s settings` : 'Add a member'}
      onClose={onClose}
      wide
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn primary"
            disabled={!name.trim() || !role.trim() || save.pending}
            onClick={() => void save.run()}
            data-testid="save-member"
          >
            {member ? 'Save' : 'Add member'}
          </button>
        </>
      }
    >
      {!member && (
        <div className="preset-row">
          <span className="muted small">Start from a role:</span>
          {rolePresets.map((p) => (
            <button key={p.role} className={`chip${role === p.role ? ' on' : ''}`} onClick={() => applyPreset(p.role)}>
              {p.name}
            </button>
          ))}
        </div>
      )}
      <div className="form-grid">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} aria-label="Name" />
        </Field>
        <Field label="Role">
          <input
            value={role}
            onChange={(e) => setRole(e.target.value)}
            aria-label="Role"
            placeholder="implementer, tester, …"
          />
        </Field>
      </div>
      <Field label="Instructions">
        <textarea
          value={instructions}
          onChange={(e) => setInstructions(e.target.value)}
          rows={4}
          aria-label="Instructions"
        />
      </Field>
      <div className="form-grid three">
        <Field
          label="Authority over decisions"
          hint="Observer reads; proposer proposes; decider may change accepted decisions."
        >
          <select
            value={authority}
            onChange={(e) => setAuthority(e.target.value as Member['authority'])}
            aria-label="Authority"
          >
            <option value="observer">observer</option>
            <option value="proposer">proposer</option>
            <option value="decider">decider</option>
          </select>
        </Field>
        <Field
          label="Approval"
          hint="When this member waits for you before a tool call. Rules below (made with “Always…” on a call) allow or deny one kind of call."
        >
          <select
            value={approval}
            onChange={(e) => setApproval(e.target.value as Member['approval'])}
            aria-label="Approval policy"
          >
            <option value="sandboxed">{policyLabel.sandboxed}</option>
            <option value="ask">{policyLabel.ask}</option>
            <option value="auto">{policyLabel.auto}</option>
          </select>
        </Field>
        <Field label="Max steps per turn">
          <input
            type="number"
            min={1}
            max={1000}
            value={maxSteps}
            onChange={(e) => setMaxSteps(Math.max(1, Number(e.target.value) || 1))}
            aria-label="Max steps"
          />
        </Field>
      </div>
      <Field
        label="Plan every N steps"
        hint="A planning step (facts, what is left, next steps) every N steps of a turn; 0 never plans."
      >
        <input
          type="number"
          min={0}
          max={100}
          value={planningInterval}
          onChange={(e) => setPlanningInterval(Math.min(100, Math.max(0, Number(e.target.value) || 0)))}
          aria-label="Planning interval"
        />
      </Field>
      <label className="check">
        <input
          type="checkbox"
          checked={network}
          onChange={(e) => setNetwork(e.target.checked)}
          aria-label="Network for commands"
        />{' '}
        Commands may use the network
        <span className="muted small"> (off: commands run with no network)</span>
      </label>
      <div className="small policy-line" data-testid="policy-line">
        <b>Without asking:</b> {policyLine(approval, sandbox, network)}
      </div>
      {choice === 'custom' && approval === 'ask' && (
        <div className="small warn-inline" data-testid="ask-read-only">
          Concord cannot make a custom agent ask before it writes (some never do), so under ask its tree is read-only.
          Choose sandboxed or auto to let it write.
        </div>
      )}
      {member && <MemberRules member={member} />}
      <SandboxNote />
      {/* Beside the fields that fix it (the key field has the focus, so this part is what shows). */}
      {fixing && (
        <div className="settings-fix" role="alert" data-testid="settings-fix">
          <b>{member?.name} stopped:</b> {fixing}
          <div className="small">Saving sends the message that failed again, then what is queued behind it.</div>
        </div>
      )}
      <label className="check">
        <input type="checkbox" checked={useProvider} onChange={(e) => setUseProvider(e.target.checked)} /> Agent and
        model
      </label>
      {useProvider && (
        <>
          <div className="segmented" role="radiogroup" aria-label="Agent">
            {(Object.keys(agentChoices) as AgentChoice[]).map((c) => (
              <button
                key={c}
                type="button"
                role="radio"
                aria-checked={choice === c}
                className={choice === c ? 'on' : ''}
                onClick={() => chooseAgent(c)}
              >
                {agentChoices[c].label}
              </button>
            ))}
          </div>
          <div className="muted small">{agentChoices[choice].hint}</div>
          {teamProvider && (
            <div className="muted small" data-testid="team-provider-note">
              Starts from what most of your team uses (
              {teamProvider.kind === 'acp'
                ? agentChoices[teamProvider.agent].label
                : `${teamProvider.kind} · ${teamProvider.model}`}
              ). Keys are not copied between members: enter this member’s key if it needs one.
            </div>
          )}
          {choice === 'concord' ? (
            <>
              <ProviderFields
                draft={draft}
                onChange={setDraft}
                hasKey={member?.provider?.kind !== 'acp' ? member?.provider?.hasKey : false}
                focusKey={!!fixing}
              />
              <label className="check">
                <input
                  type="checkbox"
                  checked={interrupt}
                  onChange={(e) => setInterrupt(e.target.checked)}
                  aria-label="Interrupt and re-prompt"
                />{' '}
                Interrupt and re-prompt
                <span className="muted small" data-testid="interrupt-hint">
                  {interrupt
                    ? ' (when a task it works on needs adjustment, its running command or model call is stopped and it re-plans with the notice at once)'
                    : ' (off: it hears of changes after its running command ends)'}
                </span>
              </label>
            </>
          ) : (
            <AgentFields
              draft={agentDraft}
              onChange={setAgentDraft}
              hasKey={member && acp?.agent === choice ? acp.hasKey : false}
            />
          )}
        </>
      )}
      <ErrorText error={save.error?.message} />
    </Modal>
  )
}

/** The approval rules that apply to a member (its own and the team's), each removable. */
function MemberRules({ member }: { member: Member }) {
  const api = useApp((s) => s.api)
  const [rules, setRules] = useState<ApprovalRule[] | null>(null)
  const load = useAction(async () =>
    setRules(await api.call('approvalRules.list', { workspaceId: member.workspaceId, memberId: member.id })),
  )
  const remove = useAction(async (ruleId: string) => {
    await api.call('approvalRules.remove', { ruleId })
    setRules((r) => r?.filter((x) => x.id !== ruleId) ?? null)
  })
  useEffect(() => {
    void load.run()
    // Loaded once per open settings; removing updates the list in place.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [member.id])
  return (
    <div className="member-rules" data-testid="member-rules">
      <div className="small">
        <b>Rules</b>{' '}
        <span className="muted">
          {rules && rules.length === 0
            ? 'none yet: “Always…” on a waiting call makes one.'
            : 'checked before the policy; a deny rule wins.'}
        </span>
      </div>
      {rules && rules.length > 0 && (
        <ul className="rule-list">
          {rules.map((r) => (
            <li key={r.id} data-testid="member-rule" data-rule-id={r.id}>
              <span className={`rule-effect ${r.effect}`}>{r.effect}</span> <code>{ruleTarget(r)}</code>{' '}
              <span className="muted small">{r.memberId ? `for ${member.name}` : 'for the team'}</span>
              <button
                className="link-btn small"
                disabled={remove.pending}
                onClick={() => void remove.run(r.id)}
                aria-label={`Remove the rule ${ruleWords(r)}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorText error={(load.error ?? remove.error)?.message} />
    </div>
  )
}

/** Says plainly whether this member's commands run in an OS sandbox here; never claims one that is not there. */
function SandboxNote() {
  const sandbox = useApp((s) => s.system?.sandbox)
  if (!sandbox) return null
  return sandbox.available ? (
    <div className="muted small" data-testid="sandbox-note">
      Commands run in an OS sandbox ({sandbox.kind}): the repository is writable, the rest of the disk read-only,
      Concord’s data folder and your secrets invisible. An external agent (Claude Code, Codex, Gemini CLI) runs in the
      same sandbox, with the network on to reach its model.
    </div>
  ) : (
    <div className="warn-inline small" data-testid="sandbox-note">
      Not sandboxed: {sandbox.reason ?? 'no OS sandbox is available on this machine'}. Commands run with a clean
      environment in their own process group, but can read and write anything your user can; so can an external agent.
    </div>
  )
}
