/**
 * "Use the team of <workspace>" (issue 31): a second repository gets the team of another workspace in one step: its
 * members (not archived) with their providers, approval policies and approval rules, the members' and the team's.
 * Keys are referenced, never copied: a copied member reads the key of the member it was copied from in the secret
 * store (members.api_key_ref), so the key is written nowhere else, and a new key given to the original is the copy's
 * too until the copy is given a key of its own. The copy is one transaction of the target workspace: a name already
 * there refuses it whole (name_taken), and a failure leaves nothing half-copied.
 */
import { ApiError } from '../../../../shared/errors'
import { parseStoredRunner } from '../../../../shared/runners'
import type { CopiedTeam, TeamSource } from '../../../../shared/schemas'
import type { MemberRow } from '../../store/members-repo'
import type { ApprovalRuleRow } from '../../store/approval-rules-repo'
import type { Harness } from '../harness'
import type { Ctx } from '../context'
import { makeId, now } from '../ids'
import { toApprovalRule } from './approval-rules'
import { keyRefOf, memberDto, secretRef } from './members'

const nameKey = (name: string) => name.trim().toLowerCase()

/** A workspace's team as it is copied: its members not archived, and the rules of the team and of those members. */
function teamOf(ctx: Ctx): { members: MemberRow[]; rules: ApprovalRuleRow[] } {
  const members = ctx.store.members.list()
  const ids = new Set(members.map((m) => m.id))
  const rules = ctx.store.approvalRules.list().filter((r) => r.member_id === null || ids.has(r.member_id))
  return { members, rules }
}

const providerWords = (m: MemberRow): string | null =>
  m.agent ? m.agent : m.provider_kind ? `${m.provider_kind} · ${m.provider_model ?? ''}` : null

/** A workspace whose file cannot be read now (damaged, locked, a disk error) offers no team; the others still do. */
function readableTeam(h: Harness, workspaceId: string): ReturnType<typeof teamOf> | null {
  try {
    return teamOf(h.ctx(workspaceId))
  } catch (err) {
    const code = (err as ApiError).code
    if (!(code?.startsWith('storage_') || code === 'io_error')) throw err
    console.warn(`members.teams: the team of workspace ${workspaceId} is not offered: ${(err as Error).message}`)
    return null
  }
}

/** The other workspaces (not archived) whose team could be copied here, most recently opened first. */
export function teamSources(h: Harness, ctx: Ctx): TeamSource[] {
  return h.registry.list().flatMap((w) => {
    if (w.id === ctx.wsId) return []
    const team = readableTeam(h, w.id)
    if (!team || team.members.length === 0) return []
    return [
      {
        workspaceId: w.id,
        name: w.name,
        members: team.members.map((m) => ({ name: m.name, role: m.role, provider: providerWords(m) })),
        rules: team.rules.length,
      },
    ]
  })
}

type Team = ReturnType<typeof teamOf>

/** Copies the team of `fromWorkspaceId` into the workspace of `ctx` (see the file's comment). */
export function copyTeam(h: Harness, ctx: Ctx, fromWorkspaceId: string): CopiedTeam {
  if (fromWorkspaceId === ctx.wsId)
    throw new ApiError('invalid_params', 'fromWorkspaceId: a workspace cannot copy its own team')
  const from = h.ctx(fromWorkspaceId, 'fromWorkspaceId')
  const fromName = h.workspace(fromWorkspaceId).name
  const team = teamOf(from)
  if (team.members.length === 0)
    throw new ApiError('invalid_params', `fromWorkspaceId: workspace "${fromName}" has no members to copy`)

  const at = now()
  const { members, rules } = ctx.store.transaction(() => {
    refuseTakenNames(ctx, team, fromName)
    const rowIds = new Map<number, number>()
    for (const m of team.members) rowIds.set(m.id, copyMember(h, ctx, from.wsId, m, at))
    const added = copyRules(ctx, team.rules, rowIds, at)
    ctx.store.log.appendEvent(
      'team.copied',
      { fromWorkspaceId: from.wsId, members: rowIds.size, rules: added.length },
      at,
    )
    return { members: [...rowIds.values()].map((id) => ctx.store.members.get(id)!), rules: added }
  })

  const copied = members.map((row) => memberDto(ctx, h.secrets, row))
  for (const member of copied) ctx.emit('member.changed', { workspaceId: ctx.wsId, member })
  return { members: copied, rules: rules.map((r) => toApprovalRule(ctx.wsId, r)) }
}

/**
 * Read inside the transaction: a member added here meanwhile is seen. Archived members count too: restoring one
 * would make two members answer to one name.
 */
function refuseTakenNames(ctx: Ctx, team: Team, fromName: string): void {
  const here = new Map(ctx.store.members.list(true).map((m) => [nameKey(m.name), m]))
  const taken = team.members.flatMap((m) => {
    const mine = here.get(nameKey(m.name))
    return mine ? [`"${mine.name}"${mine.archived_at ? ' (archived)' : ''}`] : []
  })
  if (taken.length)
    throw new ApiError(
      'name_taken',
      `Nothing was copied from the team of "${fromName}": this workspace already has a member named ${taken.join(', ')}. Rename ${taken.length === 1 ? 'it' : 'them'} here first, or add the other members one by one.`,
      { names: team.members.filter((m) => here.has(nameKey(m.name))).map((m) => m.name) },
    )
}

/** One member of the other workspace as a new member here (its key referenced, never copied); its row id. */
function copyMember(h: Harness, ctx: Ctx, fromWsId: string, m: Team['members'][number], at: string): number {
  const id = ctx.store.members.insert({
    name: m.name,
    role: m.role,
    authority: m.authority,
    instructions: m.instructions,
    provider_kind: m.provider_kind,
    provider_model: m.provider_model,
    provider_base_url: m.provider_base_url,
    agent: m.agent,
    agent_command: m.agent_command,
    agent_args: m.agent_args,
    agent_env: m.agent_env,
    agent_key_variable: m.agent_key_variable,
    agent_isolated_home: m.agent_isolated_home,
    approval: m.approval,
    max_steps: m.max_steps,
    planning_interval: m.planning_interval,
    network: m.network,
    updated_at: at,
  })
  ctx.store.members.setAgentSettings(id, m.agent_interrupt === 1, m.agent_turn_timeout_s)
  // The repository's MCP servers it had turned off: the same names, off here too.
  ctx.store.members.setMcpOff(id, JSON.parse(m.mcp_off) as string[])
  // Its runner, as it named it; none named stays none: this workspace's default runner, like its other settings.
  ctx.store.members.setRunner(id, parseStoredRunner(m.runner))
  // The key the original reads (its own, or the one it refers to itself): referenced, never copied.
  const key = keyRefOf(makeId(fromWsId, 'member', m.id), m)
  ctx.store.members.setKeyRef(id, h.secrets.has(key) ? key : null)
  // A key an earlier member with this row id left behind (its commit and its undo both failed) is not this one's.
  const own = secretRef(makeId(ctx.wsId, 'member', id))
  if (h.secrets.has(own)) h.secrets.set(own, null)
  ctx.store.log.appendEvent(
    'member.created',
    { memberId: id, name: m.name, role: m.role, copiedFrom: { workspaceId: fromWsId, memberId: m.id } },
    at,
  )
  return id
}

/** The team's approval rules, each for the copy of its member (or for everyone). */
function copyRules(ctx: Ctx, rules: Team['rules'], rowIds: Map<number, number>, at: string) {
  return rules.map((r) => {
    const row = ctx.store.approvalRules.add({
      member_id: r.member_id === null ? null : rowIds.get(r.member_id)!,
      effect: r.effect,
      tool: r.tool,
      command_prefix: r.command_prefix,
      path_glob: r.path_glob,
      created_at: at,
    })
    ctx.store.log.appendEvent(
      'approval_rule.added',
      { ruleId: row.id, memberId: row.member_id, effect: row.effect },
      at,
    )
    return row
  })
}
