import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import { agentKindInfo } from '../../../../shared/agent-kinds'
import { parseStoredRunner } from '../../../../shared/runners'
import { argRefusal, envRefusal, keyVariableRefusal } from '../../platform/command-env'
import type { Member } from '../../../../shared/schemas'
import { NO_AGENT, type MemberRow } from '../../store/members-repo'
import type { SecretStore } from '../../platform/secrets/secret-store'
import { memberRowOf, type Ctx } from '../context'
import { makeId, now } from '../ids'
import { toMember } from '../mappers'
import { defaultApproval } from './approval-policy'
import { checkRunnerFits } from './runners'

/** A member's own entry in the secret store. */
export const secretRef = (memberId: string) => `member:${memberId}:apiKey`

/**
 * Where a member's key is read from: its own entry, or, for a member copied from another workspace's team, the entry
 * of the member it was copied from (the key is referenced, never copied: team-copy.ts).
 */
export const keyRefOf = (memberId: string, row: Pick<MemberRow, 'api_key_ref'>): string =>
  row.api_key_ref ?? secretRef(memberId)

export function memberDto(ctx: Ctx, secrets: SecretStore, row: MemberRow): Member {
  const id = makeId(ctx.wsId, 'member', row.id)
  return toMember(ctx.wsId, row, secrets.has(keyRefOf(id, row)))
}

/**
 * A member and its key are saved together or not at all. The key is written inside the member's
 * transaction, after its rows and before the commit: a failed key write rolls the member back, and
 * a failed commit puts the key back as it was. (A file write inside a transaction: the member's id
 * exists only there, and the write is synchronous.)
 */
function withKey<T>(secrets: SecretStore, ref: () => string | null, restore: string | null, commit: () => T): T {
  try {
    return commit()
  } catch (err) {
    const r = ref()
    if (r) {
      try {
        secrets.set(r, restore)
      } catch (undo) {
        console.error(`could not put back the API key ${r} after a failed save:`, (undo as Error).message)
      }
    }
    throw err
  }
}

/** Concord's own limit on one turn of an external agent (some retry a dead model endpoint forever). */
export const DEFAULT_TURN_TIMEOUT_S = 600

/** The columns a provider input sets: a model provider, or an external agent over ACP (never both). */
function providerColumns(provider: ParsedParams<'members.create'>['provider'] | null) {
  if (provider?.kind === 'acp') {
    // The agent's variables reach only its process inside the sandbox; none may make a program run other code or
    // carry a secret (the key goes in apiKey).
    for (const [name, value] of Object.entries(provider.env ?? {})) {
      const why = envRefusal(
        name,
        value,
        "the agent's key goes in apiKey, kept in the secret store; other secrets never go in its variables",
      )
      if (why) throw new ApiError('invalid_params', `provider.env: ${why}`)
      if (agentKindInfo[provider.agent].policyEnv?.includes(name))
        throw new ApiError(
          'invalid_params',
          `provider.env: ${name} is how Concord makes ${agentKindInfo[provider.agent].label} ask before acting under the member's approval policy; Concord sets it, leave it out`,
        )
    }
    // Its command line is no place for a key either: one rule with the variables' (argRefusal).
    const argsWhy = argRefusal(provider.args ?? [], "the agent's key goes in apiKey, set in its key variable")
    if (argsWhy) throw new ApiError('invalid_params', `provider.args: ${argsWhy}`)
    if (provider.keyVariable !== undefined) {
      const why = keyVariableRefusal(provider.keyVariable)
      if (why) throw new ApiError('invalid_params', `provider.keyVariable: ${why}`)
    }
    return {
      provider_kind: null,
      provider_model: null,
      provider_base_url: null,
      agent: provider.agent,
      agent_command: provider.command ?? null,
      agent_args: JSON.stringify(provider.args ?? []),
      agent_env: JSON.stringify(provider.env ?? {}),
      agent_key_variable: provider.keyVariable ?? null,
      agent_isolated_home: provider.isolatedHome ? 1 : 0,
    }
  }
  return {
    provider_kind: provider?.kind ?? null,
    provider_model: provider?.model ?? null,
    provider_base_url: provider?.baseURL ?? null,
    ...NO_AGENT,
  }
}

export async function createMember(ctx: Ctx, secrets: SecretStore, p: ParsedParams<'members.create'>): Promise<Member> {
  // A new member's default: sandboxed where the OS sandbox works (it asks only to leave it), else ask.
  checkRunnerFits(p.runner ?? null, p.provider?.kind === 'acp')
  const approval = p.approval ?? (await defaultApproval())
  const at = now()
  let ref: string | null = null
  const row = withKey(
    secrets,
    () => ref,
    null,
    () =>
      ctx.store.transaction(() => {
        const id = ctx.store.members.insert({
          name: p.name,
          role: p.role,
          authority: p.authority ?? 'proposer',
          instructions: p.instructions ?? '',
          ...providerColumns(p.provider),
          approval,
          max_steps: p.maxSteps ?? 30,
          planning_interval: p.planningInterval ?? 0,
          network: p.network ? 1 : 0,
          updated_at: at,
        })
        if (p.provider?.kind === 'acp')
          ctx.store.members.setAgentSettings(
            id,
            !!p.provider.interruptOnAdjustment,
            p.provider.turnTimeoutSeconds ?? DEFAULT_TURN_TIMEOUT_S,
          )
        else if (p.provider)
          ctx.store.members.setAgentSettings(id, !!p.provider.interruptOnAdjustment, DEFAULT_TURN_TIMEOUT_S)
        if (p.mcpOff) ctx.store.members.setMcpOff(id, [...new Set(p.mcpOff)])
        if (p.runner) ctx.store.members.setRunner(id, p.runner)
        ctx.store.log.appendEvent('member.created', { memberId: id, name: p.name, role: p.role }, at)
        ref = secretRef(makeId(ctx.wsId, 'member', id))
        // null also clears a key an earlier member with this row id left behind (its commit and its undo both failed).
        secrets.set(ref, p.provider?.apiKey || null)
        return ctx.store.members.get(id)!
      }),
  )
  const member = memberDto(ctx, secrets, row)
  ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return member
}

export function updateMember(ctx: Ctx, secrets: SecretStore, p: ParsedParams<'members.update'>): Member {
  const n = memberRowOf(ctx, p.memberId, 'memberId')
  const ref = secretRef(p.memberId)
  const previous = secrets.get(ref) ?? null
  // The key is write-only: a provider without apiKey keeps the stored key (its own, or the one a copied member refers
  // to); provider null forgets it; a new key is the member's own from then on.
  const key = p.provider === null ? null : p.provider?.apiKey || previous
  const row = withKey(
    secrets,
    () => ref,
    previous,
    () =>
      ctx.store.transaction(() => {
        const cur = ctx.store.members.get(n)!
        const provider = p.provider === undefined ? undefined : p.provider
        // Checked on what the member is once saved (a runner kept while the provider changes, or the other way round),
        // and only when the call changes either: an imported member keeps its runner while its agent is set again.
        if (p.runner !== undefined || provider !== undefined)
          checkRunnerFits(
            p.runner === undefined ? parseStoredRunner(cur.runner) : p.runner,
            provider === undefined ? cur.agent !== null : provider?.kind === 'acp',
          )
        ctx.store.members.update(n, {
          name: p.name ?? cur.name,
          role: p.role ?? cur.role,
          authority: p.authority ?? cur.authority,
          instructions: p.instructions ?? cur.instructions,
          ...(provider === undefined
            ? {
                provider_kind: cur.provider_kind,
                provider_model: cur.provider_model,
                provider_base_url: cur.provider_base_url,
                agent: cur.agent,
                agent_command: cur.agent_command,
                agent_args: cur.agent_args,
                agent_env: cur.agent_env,
                agent_key_variable: cur.agent_key_variable,
                agent_isolated_home: cur.agent_isolated_home,
              }
            : providerColumns(provider)),
          approval: p.approval ?? cur.approval,
          max_steps: p.maxSteps ?? cur.max_steps,
          planning_interval: p.planningInterval ?? cur.planning_interval,
          network: p.network === undefined ? cur.network : p.network ? 1 : 0,
          updated_at: now(),
        })
        if (provider?.kind === 'acp')
          ctx.store.members.setAgentSettings(
            n,
            !!provider.interruptOnAdjustment,
            provider.turnTimeoutSeconds ?? DEFAULT_TURN_TIMEOUT_S,
          )
        else if (provider)
          ctx.store.members.setAgentSettings(n, !!provider.interruptOnAdjustment, DEFAULT_TURN_TIMEOUT_S)
        if (p.mcpOff) ctx.store.members.setMcpOff(n, [...new Set(p.mcpOff)])
        if (p.runner !== undefined) ctx.store.members.setRunner(n, p.runner)
        if (p.provider === null || p.provider?.apiKey) ctx.store.members.setKeyRef(n, null)
        secrets.set(ref, key)
        return ctx.store.members.get(n)!
      }),
  )
  const member = memberDto(ctx, secrets, row)
  ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return member
}

export function listMembers(ctx: Ctx, secrets: SecretStore): Member[] {
  return ctx.store.members.list().map((r) => memberDto(ctx, secrets, r))
}
