import type { ParsedParams } from '../../../shared/contract'
import type { Member } from '../../../shared/schemas'
import type { MemberRow } from '../store/members-repo'
import type { SecretStore } from '../secrets/secret-store'
import { memberRowOf, type Ctx } from './context'
import { makeId, now } from './ids'
import { toMember } from './mappers'

export const secretRef = (memberId: string) => `member:${memberId}:apiKey`

export function memberDto(ctx: Ctx, secrets: SecretStore, row: MemberRow): Member {
  const id = makeId(ctx.wsId, 'member', row.id)
  return toMember(ctx.wsId, row, secrets.has(secretRef(id)))
}

export function createMember(ctx: Ctx, secrets: SecretStore, p: ParsedParams<'members.create'>): Member {
  const at = now()
  const row = ctx.store.transaction(() => {
    const id = ctx.store.members.insert({
      name: p.name,
      role: p.role,
      authority: p.authority ?? 'proposer',
      instructions: p.instructions ?? '',
      provider_kind: p.provider?.kind ?? null,
      provider_model: p.provider?.model ?? null,
      provider_base_url: p.provider?.baseURL ?? null,
      approval: p.approval ?? 'ask',
      max_steps: p.maxSteps ?? 30,
      planning_interval: p.planningInterval ?? 0,
      updated_at: at,
    })
    ctx.store.log.appendEvent('member.created', { memberId: id, name: p.name, role: p.role }, at)
    return ctx.store.members.get(id)!
  })
  if (p.provider?.apiKey) secrets.set(secretRef(makeId(ctx.wsId, 'member', row.id)), p.provider.apiKey)
  const member = memberDto(ctx, secrets, row)
  ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return member
}

export function updateMember(ctx: Ctx, secrets: SecretStore, p: ParsedParams<'members.update'>): Member {
  const n = memberRowOf(ctx, p.memberId, 'memberId')
  const row = ctx.store.transaction(() => {
    const cur = ctx.store.members.get(n)!
    const provider = p.provider === undefined ? undefined : p.provider
    ctx.store.members.update(n, {
      name: p.name ?? cur.name,
      role: p.role ?? cur.role,
      authority: p.authority ?? cur.authority,
      instructions: p.instructions ?? cur.instructions,
      provider_kind: provider === undefined ? cur.provider_kind : (provider?.kind ?? null),
      provider_model: provider === undefined ? cur.provider_model : (provider?.model ?? null),
      provider_base_url: provider === undefined ? cur.provider_base_url : (provider?.baseURL ?? null),
      approval: p.approval ?? cur.approval,
      max_steps: p.maxSteps ?? cur.max_steps,
      planning_interval: p.planningInterval ?? cur.planning_interval,
      updated_at: now(),
    })
    return ctx.store.members.get(n)!
  })
  // The key is write-only: a provider without apiKey keeps the stored key; provider null forgets it.
  if (p.provider === null) secrets.set(secretRef(p.memberId), null)
  else if (p.provider?.apiKey) secrets.set(secretRef(p.memberId), p.provider.apiKey)
  const member = memberDto(ctx, secrets, row)
  ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return member
}

export function listMembers(ctx: Ctx, secrets: SecretStore): Member[] {
  return ctx.store.members.list().map((r) => memberDto(ctx, secrets, r))
}
