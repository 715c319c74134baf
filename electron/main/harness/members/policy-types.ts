/** What the approval policy reads and answers: a rule, a call as the sandbox sees it, and the answer (approval-policy.ts). */
import type { ApprovalPolicyName, ApprovalRule } from '../../../../shared/schemas'

export type ApprovalPolicy = ApprovalPolicyName

/** A rule as the policy reads it (stored rules and imported ones alike). */
export type PolicyRule = Pick<ApprovalRule, 'effect' | 'tool' | 'commandPrefix' | 'pathGlob'> & {
  id?: string
  memberId?: string | null
}

/** What a call does, as far as the sandbox is concerned. */
export type CallEffect =
  /** Reads only (files, the harness): never asks. */
  | 'read'
  /** Writes the files named in `paths`. */
  | 'write'
  /** Runs `command` (network per `network`). */
  | 'command'
  /** Commits the tree (hooks per `hooks`). */
  | 'commit'
  /** Leaves the sandbox whatever its arguments (`leaves` says how). */
  | 'leaves'

export interface PolicyCall {
  /** The tool's name as Concord knows it (an agent's calls are mapped onto run_command, write_file, …). */
  tool: string
  effect: CallEffect
  /** Whether `ask` asks for it (the tool's needsApproval). Reads are false. */
  asksUnderAsk: boolean
  /** The shell command of a command. */
  command?: string
  /** The files a write touches, relative to `root` or absolute. */
  paths?: string[]
  /** The turn's own tree. */
  root?: string
  /** The tree is a read-only checkout: a write in it leaves what the sandbox lets this turn do. */
  readOnlyTree?: boolean
  /** A command runs with the network on. */
  network?: boolean
  /** A commit runs the repository's hooks. */
  hooks?: boolean
  /** For `leaves`: what it does, in words ("changes a team decision"). */
  leaves?: string
}

export interface SandboxState {
  available: boolean
  reason?: string
}

export interface PolicyAnswer {
  /** The call waits for the human. */
  ask: boolean
  /** The call is refused without asking (a deny rule). */
  deny: boolean
  /** Why, in words for the approval card and the agent. */
  why: string
  /** The rule that decided, if one did. */
  rule?: PolicyRule
  /** It asks because a deny rule may refuse it: "Always allow" offers no rule (see suggestedRule). */
  mayBeDenied?: boolean
}
