import { useState } from 'react'
import type { Member } from '../../../../shared/schemas'
import {
  agentDraftFor,
  agentParam,
  draftFor,
  providerParam,
  rolePresets,
  type AgentChoice,
  type AgentDraft,
  type ProviderDraft,
} from '../../lib/presets'
import { useApp } from '../../stores/app-store'
import { runnerDraft } from './runner-draft'

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

/** The agent and model part of a member's settings: Concord's own loop with a provider, or an external agent. */
function useAgentDraft(member: Member | undefined, start: Member['provider'] | null) {
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
  return {
    useProvider,
    setUseProvider,
    draft,
    setDraft,
    acp,
    choice,
    chooseAgent,
    agentDraft,
    setAgentDraft,
    interrupt,
    setInterrupt,
    providerInput,
  }
}

/** A member's settings as the editor holds them until saved: a new member starts from the team's provider. */
export function useMemberDraft(member: Member | undefined) {
  const members = useApp((s) => s.members)
  const [teamProvider] = useState(() => (member ? null : workspaceProvider(Object.values(members))))
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
  const agent = useAgentDraft(member, member?.provider ?? teamProvider)
  const [runner, setRunner] = useState(() => runnerDraft(member?.runner ?? null))
  const applyPreset = (role: string) => {
    const p = rolePresets.find((r) => r.role === role)
    if (!p) return
    setRole(p.role)
    if (!name.trim()) setName(p.name)
    setInstructions(p.instructions)
    setAuthority(p.authority)
  }
  const fields = { name, role, instructions, authority, approval, maxSteps, planningInterval, network }
  const setters = {
    setName,
    setRole,
    setInstructions,
    setAuthority,
    setApproval,
    setMaxSteps,
    setPlanningInterval,
    setNetwork,
  }
  return { ...fields, ...setters, ...agent, fields, runner, setRunner, teamProvider, sandbox, applyPreset }
}

export type MemberDraft = ReturnType<typeof useMemberDraft>
