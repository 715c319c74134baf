/** The contract's methods for the team: members and their approval rules. */
import { z } from 'zod'
import * as s from '../schemas'
import { RunnerSchema } from '../runners'
import { method, r, actor, ws } from './method'

/** A member's settings beside its name, role, authority and provider: set at creation, changed by members.update. */
const memberSettings = {
  instructions: z.string().max(50_000).optional(),
  approval: s.ApprovalPolicy.optional(),
  maxSteps: z.number().int().min(1).max(1000).optional(),
  planningInterval: z.number().int().min(0).max(100).optional(),
  /** Commands of this member may use the network (off by default). */
  network: z.boolean().optional(),
  /** The repository's MCP servers (`.mcp.json`, by name) this member does not get; the others it gets. */
  mcpOff: z.array(s.McpServerName).max(64).optional(),
  /** Where it runs: this machine, an SSH host or a container; null, the workspace's default runner. */
  runner: RunnerSchema.nullable().optional(),
}

export const memberMethods = {
  'members.create': method(
    z.strictObject({
      ...ws,
      name: z.string().trim().min(1).max(100),
      role: z.string().trim().min(1).max(100),
      authority: s.Authority.optional(),
      provider: s.ProviderInput.optional(),
      ...memberSettings,
    }),
    r<s.Member>(),
  ),
  'members.update': method(
    z.strictObject({
      memberId: s.Id,
      name: z.string().trim().min(1).max(100).optional(),
      role: z.string().trim().min(1).max(100).optional(),
      authority: s.Authority.optional(),
      provider: s.ProviderInput.nullable().optional(),
      ...memberSettings,
    }),
    r<s.Member>(),
  ),
  'members.list': method(z.strictObject({ ...ws }), r<s.Member[]>()),
  /** The repository's MCP servers (its `.mcp.json`), each with whether the member gets it, and the entries left out. */
  'members.mcpServers': method(z.strictObject({ memberId: s.Id }), r<s.MemberMcpServers>()),
  /** The other workspaces (not archived) with a team, most recently opened first: what members.copyTeam can copy. */
  'members.teams': method(z.strictObject({ ...ws }), r<s.TeamSource[]>()),
  /**
   * "Use the team of <workspace>": copies the members of `fromWorkspaceId` (not archived) into this workspace, with
   * their providers, approval policies and approval rules (each member's and the team's). Keys are referenced in the
   * secret store, never copied. A member name already in this workspace refuses the whole copy (name_taken).
   */
  'members.copyTeam': method(z.strictObject({ ...ws, fromWorkspaceId: s.Id }), r<s.CopiedTeam>()),

  /** A member's approval rules and the team's (memberId null); without memberId, every rule of the workspace. */
  'approvalRules.list': method(z.strictObject({ ...ws, memberId: s.Id.optional() }), r<s.ApprovalRule[]>()),
  /** Adds a rule for one member, or for the team (memberId null). An identical rule is returned, not added twice. */
  'approvalRules.add': method(
    z.strictObject({ ...ws, memberId: s.Id.nullable(), rule: s.ApprovalRuleInput }),
    r<s.ApprovalRule>(),
  ),
  'approvalRules.remove': method(z.strictObject({ ruleId: s.Id }), r<{ removed: true }>()),

  // Archive, not lose (issue 13): archived items leave the lists and pages; the store and the export keep them.
  /** Deciders (and you). Refused with member_busy while the member has a turn running, an approval waiting or messages queued. */
  'members.archive': method(z.strictObject({ memberId: s.Id, ...actor }), r<s.Member>()),
  'members.restore': method(z.strictObject({ memberId: s.Id, ...actor }), r<s.Member>()),
} as const
