/** The validated inputs and enumerations every transport shares: ids, policies, states, providers, branch names. */
import { agentKinds } from '../agent-kinds'
import { decisionStatuses, providerKinds, verdicts } from '../enums'
import { reportKinds } from '../report-kinds'
import { z } from 'zod'

export const Id = z.string().min(1).max(64)
/** A server's name in the repository's `.mcp.json` (part of its tools' names: mcp__<server>__<tool>). */
export const McpServerName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ or -, at most 32')

export const Authority = z.enum(['observer', 'proposer', 'decider'])

/**
 * When a member asks the human before a tool call: `ask` every write and command; `sandboxed` only what leaves the
 * OS sandbox (network, outside its tree, hooks, decisions, cancelling; everything when there is no sandbox); `auto` never.
 */
export const ApprovalPolicy = z.enum(['ask', 'sandboxed', 'auto'])

export type ApprovalPolicyName = z.infer<typeof ApprovalPolicy>

/** What an approval rule matches: a tool, a command prefix (`npm test`), a path glob (`src/**`); at least one. */
export const ApprovalRuleInput = z
  .strictObject({
    effect: z.enum(['allow', 'deny']),
    tool: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9_.:-]+$/, 'is not a tool name')
      .nullable()
      .optional(),
    commandPrefix: z.string().trim().min(1).max(500).nullable().optional(),
    pathGlob: z.string().trim().min(1).max(500).nullable().optional(),
  })
  .refine((r) => r.tool || r.commandPrefix || r.pathGlob, 'a rule names a tool, a command prefix or a path glob')

export interface ApprovalRule {
  id: string
  workspaceId: string
  /** The member it is for; null: for the whole team (the workspace). */
  memberId: string | null
  effect: 'allow' | 'deny'
  tool: string | null
  commandPrefix: string | null
  pathGlob: string | null
  createdAt: string
}

export const DecisionStatus = z.enum(decisionStatuses)

export const TaskStatus = z.enum(['todo', 'in_progress', 'delivered', 'accepted', 'blocked', 'cancelled'])

export const TaskFlag = z.enum(['requirements_updated', 'needs_adjustment', 'needs_reverification'])

export const LinkState = z.enum(['current', 'suspect'])

export const ReportKind = z.enum(reportKinds)

export const Verdict = z.enum(verdicts)

export const ProposalState = z.enum(['pending', 'accepted', 'rejected'])

export const ProviderKind = z.enum(providerKinds)

export const MemberState = z.enum(['idle', 'running', 'waiting_approval', 'error'])

export const Isolation = z.enum(['worktree', 'shared'])

export const MergeStrategy = z.enum(['merge', 'squash', 'ff-only'])

/** Which side of a diff a comment's line numbers count on: the task's head ('new') or its base ('old'). */
export const DiffCommentSide = z.enum(['new', 'old'])

/** A git branch name as Concord accepts it from a user (git check-ref-format's rules, conservatively). */
export const BranchName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(
    /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)(?!.*\/$)(?!.*\.$)[^\s~^:?*[\\\x00-\x1f\x7f]+$/,
    'is not a valid branch name',
  )

export const Artifact = z
  .strictObject({
    /** A commit SHA (short works), a branch, a tag or HEAD: resolved with git to the full SHA in the workspace's repository. */
    commit: z.string().trim().min(1).max(256).optional(),
    digest: z.string().trim().min(1).max(200).optional(),
  })
  .refine((a) => a.commit !== undefined || a.digest !== undefined, 'needs a commit or a digest')

export const ModelProviderInput = z.strictObject({
  kind: ProviderKind,
  model: z.string().trim().min(1).max(200),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).max(500).optional(),
  /** A task in progress flagged needs_adjustment stops the running command or model call; the turn goes on with the notice. */
  interruptOnAdjustment: z.boolean().optional(),
})

/** An external coding agent driven over ACP (Claude Code, Codex, Gemini CLI, or any ACP command). */
export const AgentPreset = z.enum(agentKinds)

export const AcpProviderInput = z
  .strictObject({
    kind: z.literal('acp'),
    agent: AgentPreset,
    /** Overrides the preset's command (required for custom). */
    command: z.string().trim().min(1).max(1000).optional(),
    args: z.array(z.string().max(1000)).max(50).optional(),
    /** Plain variables for the agent's process (never secrets: the key goes in apiKey). */
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a variable name'), z.string().max(10_000))
      .optional(),
    /** Kept in the secret store; passed only to this agent's process, as the preset's key variable. */
    apiKey: z.string().min(1).max(500).optional(),
    /**
     * The environment variable the key is set in (OPENAI_API_KEY, ANTHROPIC_API_KEY, …): a custom agent's own; for a
     * preset, overrides its variable. Checked when saved (keyVariableRefusal).
     */
    keyVariable: z.string().trim().min(1).max(100).optional(),
    /** HOME (and CODEX_HOME, CLAUDE_CONFIG_DIR) under the data folder, per member: members share no agent state. */
    isolatedHome: z.boolean().optional(),
    /** A task flagged needs_adjustment cancels the running turn and re-prompts with the notice at once. */
    interruptOnAdjustment: z.boolean().optional(),
    /** Concord stops a turn that runs longer (default 600 s = 10 min). */
    turnTimeoutSeconds: z.number().int().min(1).max(86_400).optional(),
  })
  .refine((a) => a.agent !== 'custom' || !!a.command, {
    message: 'a custom agent needs its command',
    path: ['command'],
  })

export const ProviderInput = z.union([ModelProviderInput, AcpProviderInput])

export const UpdateMode = z.enum(['merge', 'rebase'])

export type UpdateMode = z.infer<typeof UpdateMode>

export const MergeMode = z.enum(['verified', 'as-accepted'])

export type MergeMode = z.infer<typeof MergeMode>

export const FollowUpMode = z.enum(['create', 'offer'])

export type FollowUpMode = z.infer<typeof FollowUpMode>

/** The editors a task's tree opens in, each by the URL its installer registers (vscode://file/<path>, …). */
export const Editor = z.enum(['vscode', 'cursor', 'windsurf', 'vscodium', 'zed'])

export type Editor = z.infer<typeof Editor>

export const editorNames: Record<Editor, string> = {
  vscode: 'VS Code',
  cursor: 'Cursor',
  windsurf: 'Windsurf',
  vscodium: 'VSCodium',
  zed: 'Zed',
}

/** Where tasks.openTree opens a tree: the editor, a terminal, or the system's file manager. */
export const OpenTreeIn = z.enum(['editor', 'terminal', 'files'])

export type OpenTreeIn = z.infer<typeof OpenTreeIn>

/** Where a submitted plan stands: waiting for the user, approved, sent back with a comment, or rejected. */
export const PlanState = z.enum(['pending', 'approved', 'changes_requested', 'rejected'])
