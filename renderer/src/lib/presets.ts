import { agentKindInfo, type AgentKind, type AgentKindInfo } from '../../../shared/agent-kinds'
import type { ProviderKindValue } from '../../../shared/enums'
import type { Member } from '../../../shared/schemas'

export type ProviderKind = ProviderKindValue

export interface ProviderDraft {
  kind: ProviderKind
  model: string
  baseURL: string
  apiKey: string
}

export const providerPresets: Record<
  ProviderKind,
  { label: string; model: string; baseURL: string; needsKey: boolean; hint: string }
> = {
  openai: {
    label: 'OpenAI',
    model: 'gpt-4.1',
    baseURL: '',
    needsKey: true,
    hint: 'Chat Completions with tools. Needs an API key.',
  },
  anthropic: {
    label: 'Anthropic',
    model: 'claude-sonnet-4-5',
    baseURL: '',
    needsKey: true,
    hint: 'Messages with tool use. Needs an API key.',
  },
  'openai-compatible': {
    label: 'Local / OpenAI-compatible',
    model: 'llama3.1',
    baseURL: 'http://127.0.0.1:11434/v1',
    needsKey: false,
    hint: 'Ollama, LM Studio, llama.cpp server, OpenRouter… by base URL. A key is optional.',
  },
}

export function draftFor(kind: ProviderKind): ProviderDraft {
  return { kind, model: providerPresets[kind].model, baseURL: providerPresets[kind].baseURL, apiKey: '' }
}

/** The `provider` param for members.create/update: the key only when typed (it is write-only). */
export function providerParam(d: ProviderDraft): {
  kind: ProviderKind
  model: string
  baseURL?: string
  apiKey?: string
} {
  return {
    kind: d.kind,
    model: d.model.trim(),
    ...(d.baseURL.trim() ? { baseURL: d.baseURL.trim() } : {}),
    ...(d.apiKey.trim() ? { apiKey: d.apiKey.trim() } : {}),
  }
}

/** What a member runs as: Concord's own agent loop with a model provider, or an external agent over ACP. */
export type { AgentKind }
export type AgentChoice = 'concord' | AgentKind

/** Concord's own agent, then the external agents of shared/agent-kinds.ts (the runtime's presets read the same list). */
export const agentChoices: Record<AgentChoice, AgentKindInfo> = {
  concord: {
    label: 'Concord’s agent',
    command: '',
    install: '',
    hint: 'Concord runs the agent loop itself against a model provider (API key or a local model).',
    keyVariable: null,
  },
  ...agentKindInfo,
}

export interface AgentDraft {
  agent: AgentKind
  command: string
  /** One argument per line. */
  args: string
  /** NAME=value, one per line (plain values; the key goes in apiKey). */
  env: string
  apiKey: string
  /** A custom agent's variable for its key (OPENAI_API_KEY, …); presets have their own. */
  keyVariable: string
  isolatedHome: boolean
  interruptOnAdjustment: boolean
  turnTimeoutMinutes: number
}

export function agentDraftFor(
  agent: AgentKind,
  from?: Extract<NonNullable<Member['provider']>, { kind: 'acp' }>,
): AgentDraft {
  return {
    agent,
    command: from?.command ?? '',
    args: (from?.args ?? []).join('\n'),
    env: Object.entries(from?.env ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    apiKey: '',
    keyVariable: from?.keyVariable ?? '',
    isolatedHome: from?.isolatedHome ?? true,
    interruptOnAdjustment: from?.interruptOnAdjustment ?? false,
    turnTimeoutMinutes: from ? Math.max(1, Math.round(from.turnTimeoutSeconds / 60)) : 10,
  }
}

/** The program the agent runs as: the member's own command when set, else its preset's; undefined when neither names one. */
export function agentCommandOf(d: AgentDraft): string | undefined {
  return d.command.trim() || agentChoices[d.agent].command || undefined
}

/** The ACP `provider` param; throws a person-readable error for an env line that is not NAME=value. */
export function agentParam(d: AgentDraft) {
  const env: Record<string, string> = {}
  for (const line of d.env
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const eq = line.indexOf('=')
    if (eq < 1) throw new Error(`Environment: "${line}" is not NAME=value`)
    env[line.slice(0, eq).trim()] = line.slice(eq + 1)
  }
  const args = d.args
    .split('\n')
    .map((a) => a.trim())
    .filter(Boolean)
  return {
    kind: 'acp' as const,
    agent: d.agent,
    ...(d.command.trim() ? { command: d.command.trim() } : {}),
    ...(args.length ? { args } : {}),
    ...(Object.keys(env).length ? { env } : {}),
    ...(d.apiKey.trim() ? { apiKey: d.apiKey.trim() } : {}),
    ...(d.agent === 'custom' && d.keyVariable.trim() ? { keyVariable: d.keyVariable.trim() } : {}),
    isolatedHome: d.isolatedHome,
    interruptOnAdjustment: d.interruptOnAdjustment,
    turnTimeoutSeconds: Math.round(d.turnTimeoutMinutes * 60),
  }
}

export interface RolePreset {
  role: string
  name: string
  authority: Member['authority']
  instructions: string
  blurb: string
}

export const rolePresets: RolePreset[] = [
  {
    role: 'lead',
    name: 'Lead',
    authority: 'decider',
    blurb: 'Turns goals into decisions and tasks; may change accepted decisions.',
    instructions:
      'You lead the team. Record the trade-offs the human confirms as decisions, break the work into tasks linked to the decisions they depend on, assign them, and keep everyone aligned when a decision changes.',
  },
  {
    role: 'implementer',
    name: 'Implementer',
    authority: 'proposer',
    blurb: 'Writes the code for its tasks and reports what it built on which commit.',
    instructions:
      'You implement your assigned tasks in this repository. Follow the current decisions in your brief; if one seems wrong, propose a change instead of ignoring it. When done, commit and submit an implementation report with its basis, artifact and claims.',
  },
  {
    role: 'tester',
    name: 'Tester',
    authority: 'proposer',
    blurb: 'Checks delivered work against the decisions and submits test reports.',
    instructions:
      'You verify delivered tasks. Run the tests that exercise each decision the task depends on, then submit a test report naming the commit you checked, the decision versions it is based on, and one claim per behaviour you proved.',
  },
  {
    role: 'reviewer',
    name: 'Reviewer',
    authority: 'proposer',
    blurb: 'Reviews the diff for fit with the decisions and submits review reports.',
    instructions:
      'You review delivered work: read the diff, compare it with the current decisions, and submit a review report with its basis, the commit you reviewed and your claims. Propose decision changes when you find a conflict.',
  },
]
