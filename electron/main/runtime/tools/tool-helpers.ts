/** Limits and small helpers shared by the repository tools. */
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { ToolError } from '../../platform/tool-error'
import { unknownArguments } from './unknown-arguments'

export const MAX_READ_BYTES = 2 * 1024 * 1024
export const DEFAULT_READ_LINES = 2000
export const MAX_LINE_CHARS = 2000
export const LIST_CAP = 1000
export const SEARCH_CAP = 200
export const SEARCH_LINE_CHARS = 300
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000
export const MAX_COMMAND_TIMEOUT_MS = 10 * 60_000
export { COMMAND_OUTPUT_CAP } from '../../platform/shell'
export const GIT_OUTPUT_CAP = 256 * 1024
/** Directories search_text skips and list_files does not descend into. */
export const SKIP_DIRS = new Set(['node_modules'])

// ---------------------------------------------------------------------------------------------------------------------
// helpers

/**
 * Validates a tool call's JSON-parsed arguments: the one parse between the model and `run` (the agent loop and
 * Concord's MCP server both call it). Missing arguments are an empty object. An argument the tool's schema does not
 * name is refused, not dropped: the schema the model is shown is closed (`additionalProperties: false`), and a model
 * that passed an argument meant something by it.
 */
export function parseArgs<T>(schema: z.ZodType<T>, raw: unknown, tool: string): T {
  const unknown = unknownArguments(schema, raw ?? {})
  if (unknown.length)
    throw new ToolError(
      'invalid_arguments',
      `Invalid arguments for ${tool}: ${unknown.map((k) => `${k}: not an argument of this tool`).join('; ')} (its input schema names every argument)`,
    )
  const r = schema.safeParse(raw ?? {})
  if (r.success) return r.data
  const detail = r.error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`)
    .join('; ')
  throw new ToolError('invalid_arguments', `Invalid arguments for ${tool}: ${detail}`)
}

export function checkAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError('aborted', 'Interrupted.')
}

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0)
}

/** Keeps the first and last `cap/2` characters of a long text with a marker in between. */
export function capText(text: string, cap: number): string {
  if (text.length <= cap) return text
  const half = Math.floor(cap / 2)
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters omitted ...]\n${text.slice(-half)}`
}

export async function readTextFile(abs: string, rel: string): Promise<string> {
  let st
  try {
    st = await stat(abs)
  } catch {
    throw new ToolError('not_found', `No such file: ${rel}`)
  }
  if (st.isDirectory()) throw new ToolError('not_a_file', `${rel} is a directory (use list_files).`)
  if (!st.isFile()) throw new ToolError('not_a_file', `${rel} is not a regular file.`)
  if (st.size > MAX_READ_BYTES) {
    throw new ToolError(
      'file_too_large',
      `${rel} is ${st.size} bytes, over the ${MAX_READ_BYTES}-byte limit; inspect it with run_command (e.g. head, grep).`,
    )
  }
  const buf = await readFile(abs)
  if (isBinary(buf)) throw new ToolError('binary_file', `${rel} looks like a binary file; refusing to read it as text.`)
  return buf.toString('utf8')
}

/** Writes via a temp file in the same directory then rename, keeping the mode of an existing file. */
export async function atomicWrite(abs: string, content: string): Promise<boolean> {
  let existedMode: number | null = null
  try {
    const st = await stat(abs)
    if (st.isDirectory()) throw new ToolError('not_a_file', 'Target is a directory.')
    existedMode = st.mode & 0o7777
  } catch (err) {
    if (err instanceof ToolError) throw err
  }
  await mkdir(path.dirname(abs), { recursive: true })
  const tmp = path.join(
    path.dirname(abs),
    `.${path.basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  )
  try {
    await writeFile(tmp, content, { encoding: 'utf8', flag: 'wx' })
    if (existedMode !== null) await chmod(tmp, existedMode)
    await rename(tmp, abs)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  return existedMode === null
}
