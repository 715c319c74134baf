import './approvals.css'
import { commonEnds } from '../../../../shared/common-ends'

/**
 * What a call waiting for approval will do, in the form a person reads it: a file edit as a diff, a new file
 * as its lines, a command as the command line. Arguments come from Concord's tools (path/old/new, path/content,
 * command) or an ACP agent's (file_path/old_string/new_string, command as a string or argv); anything else is
 * shown as formatted JSON.
 */
export type ApprovalView =
  | { kind: 'edit'; path: string; before: string; after: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'command'; command: string; cwd: string | null }
  | { kind: 'json'; text: string }

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const first = (o: Record<string, unknown>, keys: string[]): string | null =>
  keys.map((k) => str(o[k])).find((v) => v !== null) ?? null

/** A shell-readable line for an argv (quotes only where needed). */
function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

export function approvalView(argumentsText: string): ApprovalView {
  let args: unknown
  try {
    args = JSON.parse(argumentsText)
  } catch {
    return { kind: 'json', text: argumentsText }
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return { kind: 'json', text: JSON.stringify(args, null, 2) }
  const o = args as Record<string, unknown>
  const path = first(o, ['path', 'file_path', 'filePath', 'file'])
  const before = first(o, ['old', 'old_string', 'oldText', 'old_str'])
  const after = first(o, ['new', 'new_string', 'newText', 'new_str'])
  if (path !== null && before !== null && after !== null) return { kind: 'edit', path, before, after }
  const content = first(o, ['content', 'contents', 'text'])
  if (path !== null && content !== null) return { kind: 'write', path, content }
  const command =
    Array.isArray(o.command) && o.command.every((a) => typeof a === 'string') ? shellLine(o.command) : str(o.command)
  if (command !== null) return { kind: 'command', command, cwd: first(o, ['cwd', 'workdir']) }
  return { kind: 'json', text: JSON.stringify(args, null, 2) }
}

const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'))

/** Lines removed then added, with the common leading and trailing lines kept as context. */
export function editLines(before: string, after: string): { kind: ' ' | '-' | '+'; text: string }[] {
  const a = lines(before)
  const b = lines(after)
  const { head, tail } = commonEnds(a, b)
  return [
    ...a.slice(0, head).map((text) => ({ kind: ' ' as const, text })),
    ...a.slice(head, a.length - tail).map((text) => ({ kind: '-' as const, text })),
    ...b.slice(head, b.length - tail).map((text) => ({ kind: '+' as const, text })),
    ...a.slice(a.length - tail).map((text) => ({ kind: ' ' as const, text })),
  ]
}

const MAX_LINES = 200

function DiffLines({ rows }: { rows: { kind: ' ' | '-' | '+'; text: string }[] }) {
  const shown = rows.slice(0, MAX_LINES)
  return (
    <pre className="approval-diff">
      {shown.map((r, i) => (
        <div key={i} className={r.kind === '+' ? 'add' : r.kind === '-' ? 'del' : 'ctx'}>
          <span className="sign">{r.kind}</span>
          {r.text || ' '}
        </div>
      ))}
      {rows.length > MAX_LINES && <div className="ctx">… {rows.length - MAX_LINES} more lines</div>}
    </pre>
  )
}

/**
 * `current`: the file a write would overwrite, as it is now (the session's pending approval carries it): the write
 * shows as a diff against it; null, a new file; absent, the whole text as added lines.
 */
export function ApprovalPreview({ argumentsText, current }: { argumentsText: string; current?: string | null }) {
  const view = approvalView(argumentsText)
  if (view.kind === 'write' && typeof current === 'string') {
    return (
      <div className="approval-preview" data-testid="approval-diff" data-kind="overwrite">
        <div className="approval-path">
          overwrite <code>{view.path}</code>
        </div>
        <DiffLines rows={editLines(current, view.content)} />
      </div>
    )
  }
  if (view.kind === 'edit') {
    return (
      <div className="approval-preview" data-testid="approval-diff" data-kind="edit">
        <div className="approval-path">
          edit <code>{view.path}</code>
        </div>
        <DiffLines rows={editLines(view.before, view.after)} />
      </div>
    )
  }
  if (view.kind === 'write') {
    return (
      <div className="approval-preview" data-testid="approval-diff" data-kind="write">
        <div className="approval-path">
          {current === null ? 'new file' : 'write'} <code>{view.path}</code> ({lines(view.content).length} lines)
        </div>
        <DiffLines rows={lines(view.content).map((text) => ({ kind: '+', text }))} />
      </div>
    )
  }
  if (view.kind === 'command') {
    return (
      <div className="approval-preview" data-testid="approval-command">
        <pre className="approval-command">
          <span className="prompt">$ </span>
          {view.command}
        </pre>
        {view.cwd && <div className="approval-path">in {view.cwd}</div>}
      </div>
    )
  }
  return <pre className="code approval-json">{view.text}</pre>
}

/** One line for a bar or a list: "edit src/a.ts", "$ npm test". */
export function approvalSummary(argumentsText: string): string {
  const v = approvalView(argumentsText)
  const line =
    v.kind === 'edit'
      ? `edit ${v.path}`
      : v.kind === 'write'
        ? `write ${v.path}`
        : v.kind === 'command'
          ? `$ ${v.command}`
          : v.text.replace(/\s+/g, ' ')
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}
