/**
 * An ACP agent's tool call as a step a person reads, like a built-in member's: the arguments in the shapes the
 * session view and the approval card know (a command line and its folder, a path with its old and new text, a path
 * with its content), and the result as text (the command's output, the edit's diff), not the agent's raw event.
 */
import type { ContentBlock, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk'
import { commonEnds } from '../../../../shared/common-ends'

/** What an agent says about a call, in `tool_call`, `tool_call_update` or a permission request. */
export interface AcpToolCall {
  title?: string | null
  kind?: ToolKind | null
  rawInput?: unknown
  rawOutput?: unknown
  content?: ToolCallContent[] | null
  locations?: ToolCallLocation[] | null
  /** What the agent adds of its own (Qwen Code: `toolName`, the name of the tool in its registry). */
  _meta?: Record<string, unknown> | null
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const firstStr = (o: Record<string, unknown>, keys: string[]): string | undefined =>
  keys.map((k) => str(o[k])).find((v) => v !== undefined)

/** `bash -lc 'script'` (how Codex runs every command) is its script; any other argv stays an argv. */
function commandOf(v: unknown): string | string[] | undefined {
  if (typeof v === 'string') return v
  if (!Array.isArray(v) || !v.every((a) => typeof a === 'string')) return undefined
  const [shell, flag, script, ...more] = v
  if (
    shell &&
    script !== undefined &&
    !more.length &&
    /(^|\/)(ba|z|da)?sh$/.test(shell) &&
    (flag === '-c' || flag === '-lc')
  )
    return script
  return v
}

/**
 * The call's arguments as Concord shows them: `{command, cwd}`, `{path, old, new}`, `{path, content}`, or the agent's
 * own input (an MCP tool's arguments); null while nothing is known yet (Claude Code announces a call before its input).
 */
export function toolArgs(call: AcpToolCall): Record<string, unknown> | null {
  const diff = (call.content ?? []).find((c) => c.type === 'diff')
  if (diff && diff.type === 'diff')
    return typeof diff.oldText === 'string'
      ? { path: diff.path, old: diff.oldText, new: diff.newText }
      : { path: diff.path, content: diff.newText }
  const input = call.rawInput
  if (isObject(input)) {
    const command = commandOf(input.command) ?? commandOf(input.cmd)
    if (command !== undefined) {
      const cwd = firstStr(input, ['cwd', 'workdir'])
      return { command, ...(cwd ? { cwd } : {}) }
    }
    const path = firstStr(input, ['path', 'file_path', 'filePath', 'absolute_path', 'notebook_path'])
    const before = firstStr(input, ['old', 'old_string', 'oldText'])
    const after = firstStr(input, ['new', 'new_string', 'newText'])
    if (path !== undefined && before !== undefined && after !== undefined) return { path, old: before, new: after }
    const content = firstStr(input, ['content', 'contents'])
    if (path !== undefined && content !== undefined) return { path, content }
    // GitHub Copilot CLI 1.0.102's permission request for a create or an edit: the file and a unified diff, which its
    // tool_call before it carried in the shape above (kept: acp-updates.ts).
    if (typeof input.fileName === 'string' && typeof input.diff === 'string') return null
    // An MCP call as Codex reports it: {server, tool, arguments}.
    if (isObject(input.arguments) && typeof input.tool === 'string') return input.arguments
    if (Object.keys(input).length) return input
  }
  const at = call.locations?.[0]?.path
  if (at) return { path: at }
  return null
}

const contentText = (c: ContentBlock): string =>
  c.type === 'text' ? c.text : c.type === 'resource_link' ? c.uri : `[${c.type}]`
const textLines = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'))

/** The changed lines of an edit, with `-` and `+` (the common head and tail left out). */
function diffText(path: string, before: string | null | undefined, after: string): string {
  if (typeof before !== 'string')
    return `wrote ${path}\n${textLines(after)
      .map((l) => `+${l}`)
      .join('\n')}`
  const a = textLines(before)
  const b = textLines(after)
  const { head, tail } = commonEnds(a, b)
  const rows = [
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
  ]
  return `edited ${path}\n${rows.join('\n')}`
}

/**
 * What a command printed, from an agent's raw result (Codex's exec event), with its exit code when not 0; or the
 * text of a result that has one (GitHub Copilot CLI 1.0.102: `{content, detailedContent}` of a view, whose
 * detailedContent is a diff; `{message, code}` of a failed call).
 */
function outputOf(raw: unknown): string | null {
  if (typeof raw === 'string') return raw
  if (!isObject(raw)) return raw === undefined || raw === null ? null : JSON.stringify(raw)
  const out = firstStr(raw, ['formatted_output', 'aggregated_output', 'output', 'stdout', 'content', 'message'])
  if (out === undefined) {
    // An MCP result: its text content.
    const content = Array.isArray(raw.content) ? (raw.content as { type?: string; text?: string }[]) : null
    if (content) return content.map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n')
    return JSON.stringify(raw)
  }
  const stderr = out === raw.stdout ? str(raw.stderr) : undefined
  const code =
    typeof raw.exit_code === 'number' ? raw.exit_code : typeof raw.exitCode === 'number' ? raw.exitCode : null
  return [out.replace(/\n$/, ''), stderr?.replace(/\n$/, ''), code ? `(exit code ${code})` : '']
    .filter(Boolean)
    .join('\n')
}

/** The call's result as text: its content (text, diffs), else what its raw output says. */
export function toolResultText(call: AcpToolCall): string {
  const parts = (call.content ?? []).map((c) =>
    c.type === 'content'
      ? contentText(c.content)
      : c.type === 'diff'
        ? diffText(c.path, c.oldText, c.newText)
        : `[terminal ${c.terminalId}]`,
  )
  const text = parts.filter(Boolean).join('\n')
  return text || (outputOf(call.rawOutput) ?? '')
}
