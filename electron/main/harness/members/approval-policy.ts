/**
 * The one place that decides whether a tool call waits for the human: the member's policy (`ask`, `sandboxed`,
 * `auto`), its approval rules and the team's, and whether the OS sandbox holds here. Every engine calls it: the
 * built-in loop, Concord's MCP tools, and ACP agents' permission requests (each first describes its call as a
 * PolicyCall). Under `sandboxed` what stays inside the sandbox runs (writes, edits, commits and commands in the
 * turn's own tree, network off); what leaves it asks: a command with the network on, a write outside the tree,
 * git hooks, changing a decision, cancelling or accepting a task, anything an agent asks for that Concord cannot
 * place. Without a sandbox, `sandboxed` asks for every call `ask` would, and says why.
 */
import { ruleWords } from '../../../../shared/approval-words'
import { sandboxStatus } from '../../platform/sandbox/status'
import { shellJoin, suggestedPrefix } from './command-words'
import type { ApprovalPolicy, PolicyAnswer, PolicyCall, PolicyRule, SandboxState } from './policy-types'
import { insideTree, ruleMatches } from './rule-matching'
import { commandsRun, maybeWhy, type CommandsRun } from './shell-commands'

export type { ApprovalPolicy, CallEffect, PolicyAnswer, PolicyCall, PolicyRule, SandboxState } from './policy-types'
export { allowPrefixMatches, denyPrefixMatches, globToRegExp, insideTree } from './rule-matching'

/** The stricter of two policies (`ask` > `sandboxed` > `auto`): a message carries its sender's policy. */
export function stricterPolicy(a: ApprovalPolicy, b: ApprovalPolicy | null | undefined): ApprovalPolicy {
  const rank: Record<ApprovalPolicy, number> = { auto: 0, sandboxed: 1, ask: 2 }
  return b && rank[b] > rank[a] ? b : a
}

/** The policy of a new member: `sandboxed` where the OS sandbox works, else `ask`. */
export async function defaultApproval(): Promise<ApprovalPolicy> {
  return (await sandboxStatus()).available ? 'sandboxed' : 'ask'
}

// ── rules ─────────────────────────────────────────────────────────────────────────────────────────────────────────

// ── the decision ──────────────────────────────────────────────────────────────────────────────────────────────────

/** Why a call leaves the sandbox under `sandboxed`, or null when it stays inside. */
function leavesSandbox(call: PolicyCall): string | null {
  switch (call.effect) {
    case 'read':
      return null
    case 'leaves':
      return call.leaves ?? `${call.tool} is not something the sandbox contains`
    case 'command':
      return call.network ? 'this command runs with the network on' : null
    case 'commit':
      if (call.readOnlyTree) return 'the tree is a read-only checkout'
      return call.hooks ? "this commit runs the repository's git hooks" : null
    case 'write': {
      if (call.readOnlyTree) return 'the tree is a read-only checkout'
      if (!call.paths?.length) return 'Concord cannot tell which files this writes'
      const outside = call.paths.find((p) => insideTree(call.root, p) === null)
      if (outside !== undefined) return `it writes ${outside}, outside the task's tree`
      const git = call.paths.find((p) => /(^|\/)\.git(\/|$)/.test(insideTree(call.root, p) ?? ''))
      return git !== undefined ? `it writes ${git}, inside .git` : null
    }
  }
}

/**
 * Whether a call waits for the human. Deny rules first (the member's, then the team's: any that matches refuses
 * the call; a command Concord cannot read with confidence asks when a deny rule names commands), then allow rules
 * (one that matches runs it), then the policy.
 */
export function needsHuman(
  policy: ApprovalPolicy,
  rules: readonly PolicyRule[],
  call: PolicyCall,
  sandbox: SandboxState,
): PolicyAnswer {
  let read: CommandsRun | undefined
  const run = (): CommandsRun => (read ??= commandsRun(call.command ?? ''))
  const denies = rules.filter((r) => r.effect === 'deny').map((r) => ({ r, m: ruleMatches(r, call, run) }))
  const forTeam = (r: PolicyRule) => (r.memberId === null ? ' (for the team)' : '')
  const deny = denies.find((d) => d.m === 'yes')?.r
  if (deny)
    return { ask: false, deny: true, why: `refused by the rule "${ruleWords(deny)}"${forTeam(deny)}`, rule: deny }
  const unsure = denies.find((d) => d.m === 'maybe')?.r
  if (unsure)
    return {
      ask: true,
      deny: false,
      mayBeDenied: true,
      why: `Concord cannot tell whether the rule "${ruleWords(unsure)}"${forTeam(unsure)} refuses it: ${maybeWhy(
        run(),
        unsure.commandPrefix ?? '',
      )}`,
    }
  if (call.effect === 'read' && !call.asksUnderAsk) return { ask: false, deny: false, why: 'reads run without asking' }
  const allow = rules.find((r) => r.effect === 'allow' && ruleMatches(r, call, run) === 'yes')
  if (allow)
    return {
      ask: false,
      deny: false,
      why: `allowed by the rule "${ruleWords(allow)}"${allow.memberId === null ? ' (for the team)' : ''}`,
      rule: allow,
    }
  if (policy === 'auto') return { ask: false, deny: false, why: 'the member runs every call without asking (auto)' }
  if (policy === 'ask')
    return call.asksUnderAsk
      ? { ask: true, deny: false, why: 'the member asks before every write and command (ask)' }
      : { ask: false, deny: false, why: 'no approval needed' }
  // sandboxed
  if (!sandbox.available) {
    return call.asksUnderAsk || call.effect !== 'read'
      ? {
          ask: true,
          deny: false,
          why: `there is no OS sandbox here (${sandbox.reason ?? 'unavailable'}), so sandboxed asks for every write and command`,
        }
      : { ask: false, deny: false, why: 'no approval needed' }
  }
  const leaves = leavesSandbox(call)
  return leaves
    ? { ask: true, deny: false, why: `it leaves the sandbox: ${leaves}` }
    : { ask: false, deny: false, why: 'it stays inside the sandbox' }
}

// ── describing calls ──────────────────────────────────────────────────────────────────────────────────────────────

export interface CallSetting {
  root?: string
  readOnlyTree?: boolean
  network?: boolean
  hooks?: boolean
}

/** What Concord's own harness tools that ask do, for the card. */
const harnessLeaves: Record<string, string> = {
  update_decision: 'it changes a team decision',
  update_task_status: 'it cancels a task',
  accept_task: 'it accepts a task',
  delegate: 'it hands work to another member',
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** A call of a Concord tool (built-in loop or MCP), with its parsed arguments. */
export function describeToolCall(tool: string, args: unknown, asksUnderAsk: boolean, s: CallSetting = {}): PolicyCall {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>
  const base = { tool, asksUnderAsk, root: s.root, readOnlyTree: s.readOnlyTree }
  switch (tool) {
    case 'write_file':
    case 'edit_file':
      return { ...base, effect: 'write', paths: str(a.path) !== undefined ? [str(a.path)!] : [] }
    case 'run_command':
      return { ...base, effect: 'command', command: str(a.command) ?? '', network: !!s.network }
    case 'git_commit':
      return { ...base, effect: 'commit', hooks: !!s.hooks }
    default:
      // A tool of a repository MCP server (repo-mcp/servers.ts): a program running in the member's sandbox, asked for
      // like a command (network per the member).
      if (tool.startsWith('mcp__')) return { ...base, effect: 'command', network: !!s.network }
      return asksUnderAsk
        ? { ...base, effect: 'leaves', leaves: harnessLeaves[tool] ?? `${tool} changes the team's records` }
        : { ...base, effect: 'read' }
  }
}

/** The parts of an ACP permission request the policy reads (RequestPermissionRequest['toolCall']). */
export interface AcpToolCallLike {
  title?: string | null
  kind?: string | null
  rawInput?: unknown
  locations?: { path: string }[] | null
  _meta?: Record<string, unknown> | null
}

/** The kinds of call that change files or run programs: never taken for a Concord tool on a bare name alone. */
const MUTATING_KINDS = new Set(['edit', 'delete', 'move', 'execute'])

/**
 * A name with Concord's server in it (`mcp__concord__submit_report`, `concord.submit_report`, Codex's `Tool:
 * concord/submit_report`, `submit_report (concord MCP Server)`, `concord-submit_report`), at the start of the text
 * and ending there: a title that only contains one (a path such as `x/concord/submit_report`, an argument) is not
 * Concord's tool, or an edit or a command could pass for one and not be asked.
 */
function qualifiedConcordName(text: string): string | null {
  const t = text.trim()
  return (
    /^(?:Tool:\s*)?(?:mcp__concord__|concord(?:__|\.|\/|:\s*|\s+))([a-z_]+)(?=$|[\s(:])/i.exec(t)?.[1] ??
    /^([a-z_]+) \(concord MCP Server\)/i.exec(t)?.[1] ??
    // GitHub Copilot CLI 1.0.102 names an MCP tool `<server>-<tool>` (its tool_call's whole title): anchored, since a
    // path such as /tmp/concord-… is in its titles of edits and reads.
    /^concord-([a-z_]+)$/i.exec(text.trim())?.[1] ??
    null
  )
}

/**
 * The Concord tool an agent's call is, from what the agent says of it: its title naming Concord's server, its
 * `_meta.toolName` (Qwen Code's tool_call), or — for a call that neither edits nor runs anything — a bare tool name
 * in `_meta.toolName` or in the options' "Always Allow …: <tool>" (Qwen Code's permission request, whose title is only
 * the arguments JSON). `options` are the request's option names.
 */
export function concordToolOf(
  call: AcpToolCallLike,
  names: readonly string[],
  options: readonly string[] = [],
): string | null {
  const known = (n: string | null | undefined) => (n && names.includes(n) ? n : null)
  const metaName = typeof call._meta?.toolName === 'string' ? call._meta.toolName : ''
  const qualified = known(qualifiedConcordName(call.title ?? '')) ?? known(qualifiedConcordName(metaName))
  if (qualified) return qualified
  if (MUTATING_KINDS.has(call.kind ?? '')) return null
  return known(metaName) ?? options.map((o) => known(/:\s*([a-z_]+)\s*$/i.exec(o)?.[1])).find(Boolean) ?? null
}

/** A tool of one of the repository's MCP servers that Concord serves to an ACP agent (repo-mcp/served-tools.ts). */
export interface RepoToolRef {
  server: string
  tool: string
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The repository server's tool an agent's call is (`mcp__<server>__<tool>`), from the name the agent shows for it: in
 * its title or `_meta.toolName`, qualified by the server as agents write it (`mcp__memory__read_graph`,
 * `memory_read_graph`, `memory-read_graph`, `memory.read_graph`, `read_graph (memory MCP Server)`), or — for a call
 * that neither edits nor runs anything — a bare tool name only one server has, in `_meta.toolName` or in the options'
 * "Always Allow …: <tool>".
 */
export function repoToolOf(
  call: AcpToolCallLike,
  tools: readonly RepoToolRef[],
  options: readonly string[] = [],
): string | null {
  const texts = [call.title ?? '', typeof call._meta?.toolName === 'string' ? call._meta.toolName : '']
  const named = tools.find(({ server, tool }) => {
    const [s, t] = [escaped(server), escaped(tool)]
    const qualified = new RegExp(
      `(?:^|[^A-Za-z0-9-])(?:mcp__)?${s}(?:__|_|-|\\.|/|:\\s*|\\s+)${t}(?![A-Za-z0-9_-])|(?:^|\\s)${t} \\(${s} MCP Server\\)`,
      'i',
    )
    return texts.some((x) => qualified.test(x))
  })
  if (named) return `mcp__${named.server}__${named.tool}`
  if (MUTATING_KINDS.has(call.kind ?? '')) return null
  const bare = [texts[1], ...options.map((o) => /:\s*([A-Za-z0-9_-]+)\s*$/.exec(o)?.[1])].find(
    (n) => n && tools.filter((t) => t.tool === n).length === 1,
  )
  const owner = tools.find((t) => t.tool === bare)
  return owner ? `mcp__${owner.server}__${owner.tool}` : null
}

/**
 * An ACP agent's permission request, mapped onto Concord's tools: an edit is write_file (its paths from the
 * request's locations or its input), a command is run_command with the network on (an agent's process has it, to
 * reach its model), a read is a read, a call of Concord's own MCP tools is that tool; the rest leaves the sandbox.
 */
export function describeAcpCall(
  call: AcpToolCallLike,
  s: CallSetting & {
    concordTools: readonly string[]
    /** The Concord tool the agent's earlier report of this call named (its tool_call update), when it did. */
    knownConcordTool?: string | null
    /** The names of the request's options (Qwen Code names the tool there). */
    optionNames?: readonly string[]
    /** The repository's MCP servers' tools Concord serves the agent (it applies the policy to their calls itself). */
    repoTools?: readonly RepoToolRef[]
  },
): PolicyCall {
  const raw = (call.rawInput && typeof call.rawInput === 'object' ? call.rawInput : {}) as Record<string, unknown>
  const base = { root: s.root, readOnlyTree: s.readOnlyTree }
  // Concord's own MCP tools apply this policy themselves when they run (runtime/mcp/server.ts): the agent's own ask is a read.
  const concord =
    (MUTATING_KINDS.has(call.kind ?? '') ? null : s.knownConcordTool) ??
    concordToolOf(call, s.concordTools, s.optionNames)
  if (concord) return { ...base, tool: concord, effect: 'read', asksUnderAsk: false }
  // So do the repository's servers Concord serves the agent (repo-mcp/served-tools.ts): one call, one question.
  const repo = repoToolOf(call, s.repoTools ?? [], s.optionNames)
  if (repo) return { ...base, tool: repo, effect: 'read', asksUnderAsk: false }
  const paths = [
    ...(call.locations ?? []).map((l) => l.path),
    ...['file_path', 'path', 'abs_path', 'filePath', 'notebook_path']
      .map((k) => str(raw[k]))
      .filter((p): p is string => !!p),
  ]
  const command = Array.isArray(raw.command) ? shellJoin(raw.command.map(String)) : (str(raw.command) ?? str(raw.cmd))
  switch (call.kind) {
    case 'read':
    case 'search':
    case 'think':
      // The agent asked, so `ask` asks (as before); the sandbox shows it nothing a read could leak.
      return { ...base, tool: 'read_file', effect: 'read', asksUnderAsk: true, paths }
    case 'edit':
    case 'delete':
    case 'move':
      return { ...base, tool: 'write_file', effect: 'write', asksUnderAsk: true, paths: [...new Set(paths)] }
    case 'execute':
      return {
        ...base,
        tool: 'run_command',
        effect: 'command',
        asksUnderAsk: true,
        command: command ?? call.title ?? '',
        network: s.network ?? true,
      }
    case 'fetch':
      return { ...base, tool: 'fetch', effect: 'leaves', asksUnderAsk: true, leaves: 'it reaches the network' }
    default:
      return {
        ...base,
        tool: call.title?.trim() || 'tool',
        effect: 'leaves',
        asksUnderAsk: true,
        leaves: `Concord cannot tell what ${call.title?.trim() || 'this call'} does`,
      }
  }
}

/** The rule "Always allow" offers for a call (see command-words.ts). */
export interface RuleSuggestion {
  tool: string
  commandPrefix?: string
  /** No rule is offered for this call, and why (a command Concord cannot take apart, an interpreter…). */
  noRule?: string
}

/**
 * The rule "Always allow" offers: for a command, the command it runs' first words (`npm test`, also for
 * `bash -lc "npm test"`), never a shell, `env` or an interpreter with code, and none when the command cannot be
 * taken apart with confidence (never the whole tool) or when a deny rule may refuse it; for any other call, the tool.
 */
export function suggestedRule(call: PolicyCall, answer?: PolicyAnswer): RuleSuggestion {
  // An allow rule would never reach it (deny rules come first), and must not look as if it did.
  if (answer?.mayBeDenied)
    return { tool: call.tool, noRule: 'a deny rule may refuse this command, so Concord offers no rule for it' }
  if (call.effect !== 'command') return { tool: call.tool }
  const s = suggestedPrefix(call.command ?? '')
  return 'prefix' in s ? { tool: call.tool, commandPrefix: s.prefix } : { tool: call.tool, noRule: s.none }
}
