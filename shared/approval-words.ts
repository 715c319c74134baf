/** Approval policies and rules in words, for the wizard, the member's settings and approval cards. */
import type { ApprovalPolicyName, ApprovalRule } from './schemas'

export interface SandboxWords {
  available: boolean
  reason?: string
}

/** One line: what a member may do without asking under its policy, here (with or without the OS sandbox). */
export function policyLine(
  policy: ApprovalPolicyName,
  sandbox: SandboxWords | null | undefined,
  network = false,
): string {
  if (policy === 'auto')
    return 'Runs every tool call without asking, inside and outside the sandbox (deny rules still apply).'
  if (policy === 'ask') return 'Asks before every file write, commit and command; reads run without asking.'
  if (sandbox && !sandbox.available)
    return `Asks before every file write, commit and command: there is no OS sandbox here (${sandbox.reason ?? 'unavailable'}).`
  return network
    ? 'Edits, commits and reads in its own tree run without asking; its commands ask (its network is on), as does anything outside its tree, decisions and cancelling.'
    : 'Edits, commits and commands in its own tree run without asking, network off; leaving the sandbox (network, outside its tree, hooks, decisions, cancelling) asks.'
}

export const policyLabel: Record<ApprovalPolicyName, string> = {
  sandboxed: 'sandboxed',
  ask: 'ask every write',
  auto: 'never ask',
}

/** What a rule matches, without its effect: "run_command npm test …", "write_file in docs/**". */
export function ruleTarget(rule: Pick<ApprovalRule, 'tool' | 'commandPrefix' | 'pathGlob'>): string {
  return (
    [
      rule.tool && rule.tool !== '*' ? rule.tool : null,
      rule.commandPrefix ? `${rule.commandPrefix} …` : null,
      rule.pathGlob ? `in ${rule.pathGlob}` : null,
    ]
      .filter(Boolean)
      .join(' ') || 'every call'
  )
}

/** "allow run_command `npm test …`", "deny write_file in secrets/**". */
export function ruleWords(rule: Pick<ApprovalRule, 'effect' | 'tool' | 'commandPrefix' | 'pathGlob'>): string {
  const parts = [
    rule.tool && rule.tool !== '*' ? rule.tool : null,
    rule.commandPrefix ? `\`${rule.commandPrefix} …\`` : null,
    rule.pathGlob ? `in ${rule.pathGlob}` : null,
  ]
  return `${rule.effect} ${parts.filter(Boolean).join(' ') || 'every call'}`
}
