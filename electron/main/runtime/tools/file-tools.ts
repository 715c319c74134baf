/** read_file, list_files, search_text, write_file, edit_file: paths always resolved inside the workspace. */
import type { Dirent } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { readdir, readFile, stat } from 'node:fs/promises'
import {
  MAX_READ_BYTES,
  DEFAULT_READ_LINES,
  MAX_LINE_CHARS,
  LIST_CAP,
  SEARCH_CAP,
  SEARCH_LINE_CHARS,
  SKIP_DIRS,
  checkAborted,
  isBinary,
  readTextFile,
  atomicWrite,
} from './tool-helpers'
import { defineTool, defineWritingTool } from './tool-schema'
import type { ToolContext, ToolDefinition } from './types'
import { ToolError } from '../../platform/tool-error'
import { resolveInWorkspace, toWorkspaceRelative, workspaceRealRoot } from './workspace-path'

// ---------------------------------------------------------------------------------------------------------------------
// read_file

/** The file a tool reads or writes. */
const filePath = z.string().min(1).describe('File path relative to the workspace root.')

const readFileArgs = z.object({
  path: filePath,
  offset: z.number().int().min(1).optional().describe('1-based line number to start at.'),
  limit: z.number().int().min(1).optional().describe(`Maximum number of lines (default ${DEFAULT_READ_LINES}).`),
})
type ReadFileArgs = z.infer<typeof readFileArgs>

export const readFileTool: ToolDefinition<ReadFileArgs> = defineTool({
  name: 'read_file',
  description:
    'Read a UTF-8 text file in the workspace. Output is line-numbered like `cat -n` ("<n>\\t<line>"); the numbers ' +
    'and tab are NOT part of the file. offset = 1-based first line (default 1), limit = number of lines (default ' +
    `${DEFAULT_READ_LINES}). Binary files and files over 2 MB are refused.`,
  args: readFileArgs,
  needsApproval: false,
  async run(args, ctx) {
    const abs = await resolveInWorkspace(ctx.workspaceRoot, args.path, { mustExist: true })
    const text = await readTextFile(abs, args.path)
    if (text.length === 0) return `(${args.path} is empty)`
    const lines = text.split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    const total = lines.length
    const start = args.offset ?? 1
    const limit = args.limit ?? DEFAULT_READ_LINES
    if (start > total) return `[${args.path} has ${total} line(s); offset ${start} is past the end]`
    const end = Math.min(total, start + limit - 1)
    const width = Math.max(6, String(end).length)
    const out: string[] = []
    for (let n = start; n <= end; n++) {
      let line = lines[n - 1]!.replace(/\r$/, '') // n - 1 < total, the number of lines
      if (line.length > MAX_LINE_CHARS)
        line = `${line.slice(0, MAX_LINE_CHARS)}… [line truncated, ${line.length} chars]`
      out.push(`${String(n).padStart(width)}\t${line}`)
    }
    if (start > 1 || end < total) {
      const more = end < total ? `; call read_file with offset=${end + 1} to continue` : ''
      out.push(`[showing lines ${start}-${end} of ${total}${more}]`)
    }
    return out.join('\n')
  },
})

// ---------------------------------------------------------------------------------------------------------------------
// list_files

const listFilesArgs = z.object({
  path: z.string().optional().describe('Directory relative to the workspace root (default ".").'),
})
type ListFilesArgs = z.infer<typeof listFilesArgs>

/** Where list_files and search_text start (default: the workspace root), as given and resolved, with the root. */
async function searchRoot(
  ctx: ToolContext,
  given: string | undefined,
): Promise<{ rel: string; root: string; abs: string }> {
  const rel = given ?? '.'
  const root = await workspaceRealRoot(ctx.workspaceRoot)
  const abs = await resolveInWorkspace(ctx.workspaceRoot, rel, { mustExist: true })
  return { rel, root, abs }
}

async function readDirSorted(abs: string): Promise<Dirent[]> {
  const entries = await readdir(abs, { withFileTypes: true })
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

export const listFilesTool: ToolDefinition<ListFilesArgs> = defineTool({
  name: 'list_files',
  description:
    'List files under a directory of the workspace (default: the root), recursively, breadth first. Paths are ' +
    "relative to the workspace root; directories end with '/', symlinks with '@' (not followed). .git is skipped and " +
    `node_modules is not descended into. At most ${LIST_CAP} entries; list a subdirectory to see more.`,
  args: listFilesArgs,
  needsApproval: false,
  async run(args, ctx) {
    const { rel, root, abs } = await searchRoot(ctx, args.path)
    if (!(await stat(abs)).isDirectory()) throw new ToolError('not_a_directory', `${rel} is not a directory.`)
    const out: string[] = []
    let truncated = false
    const queue: string[] = [abs]
    outer: while (queue.length > 0) {
      checkAborted(ctx.signal)
      const dir = queue.shift()!
      let entries: Dirent[]
      try {
        entries = await readDirSorted(dir)
      } catch {
        continue
      }
      for (const e of entries) {
        if (e.name === '.git') continue
        const childAbs = path.join(dir, e.name)
        const shown = toWorkspaceRelative(root, childAbs)
        if (out.length >= LIST_CAP) {
          truncated = true
          break outer
        }
        if (e.isSymbolicLink()) out.push(`${shown}@`)
        else if (e.isDirectory()) {
          out.push(`${shown}/`)
          if (!SKIP_DIRS.has(e.name)) queue.push(childAbs)
        } else out.push(shown)
      }
    }
    if (out.length === 0) return `(${rel} is empty)`
    if (truncated) out.push(`[listing truncated at ${LIST_CAP} entries; list a subdirectory to see more]`)
    return out.join('\n')
  },
})

// ---------------------------------------------------------------------------------------------------------------------
// search_text

const searchTextArgs = z.object({
  query: z.string().min(1).describe('Exact text to look for (not a regex).'),
  path: z.string().optional().describe('Directory or file relative to the workspace root (default ".").'),
})
type SearchTextArgs = z.infer<typeof searchTextArgs>

export const searchTextTool: ToolDefinition<SearchTextArgs> = defineTool({
  name: 'search_text',
  description:
    'Case-sensitive plain substring search over the text files of the workspace (or under `path`, a directory or ' +
    'file). Skips .git, node_modules, symlinks, binary files and files over 2 MB. Output lines are ' +
    `"path:line: text". At most ${SEARCH_CAP} matches.`,
  args: searchTextArgs,
  needsApproval: false,
  async run(args, ctx) {
    const { rel, root, abs } = await searchRoot(ctx, args.path)
    const matches: string[] = []
    let truncated = false

    const searchFile = async (file: string): Promise<void> => {
      let buf: Buffer
      try {
        const st = await stat(file)
        if (!st.isFile() || st.size > MAX_READ_BYTES) return
        buf = await readFile(file)
      } catch {
        return
      }
      if (isBinary(buf)) return
      const text = buf.toString('utf8')
      if (!text.includes(args.query)) return
      const shown = toWorkspaceRelative(root, file)
      const lines = text.split('\n')
      for (const [i, raw] of lines.entries()) {
        if (!raw.includes(args.query)) continue
        if (matches.length >= SEARCH_CAP) {
          truncated = true
          return
        }
        let line = raw.replace(/\r$/, '')
        if (line.length > SEARCH_LINE_CHARS) line = `${line.slice(0, SEARCH_LINE_CHARS)}…`
        matches.push(`${shown}:${i + 1}: ${line}`)
      }
    }

    const walk = async (dir: string): Promise<void> => {
      let entries: Dirent[]
      try {
        entries = await readDirSorted(dir)
      } catch {
        return
      }
      for (const e of entries) {
        if (truncated) return
        checkAborted(ctx.signal)
        if (e.isSymbolicLink()) continue
        const child = path.join(dir, e.name)
        if (e.isDirectory()) {
          if (e.name === '.git' || SKIP_DIRS.has(e.name)) continue
          await walk(child)
        } else if (e.isFile()) await searchFile(child)
      }
    }

    if ((await stat(abs)).isDirectory()) await walk(abs)
    else await searchFile(abs)
    if (matches.length === 0) return `No matches for ${JSON.stringify(args.query)} in ${rel}.`
    if (truncated) matches.push(`[results truncated at ${SEARCH_CAP} matches; narrow the query or the path]`)
    return matches.join('\n')
  },
})

// ---------------------------------------------------------------------------------------------------------------------
// write_file / edit_file

const writeFileArgs = z.object({
  path: filePath,
  content: z.string().describe('The complete new file content.'),
})
type WriteFileArgs = z.infer<typeof writeFileArgs>

export const writeFileTool: ToolDefinition<WriteFileArgs> = defineWritingTool({
  name: 'write_file',
  description:
    'Create or overwrite a text file in the workspace with `content` (parent directories are created; the write is ' +
    'atomic). Writing inside .git is not allowed.',
  args: writeFileArgs,
  needsApproval: true,
  async run(args, ctx) {
    const abs = await resolveInWorkspace(ctx.workspaceRoot, args.path, { write: true })
    const created = await atomicWrite(abs, args.content)
    const bytes = Buffer.byteLength(args.content, 'utf8')
    return `${created ? 'Created' : 'Overwrote'} ${args.path} (${bytes} bytes).`
  },
})

const editFileArgs = z.object({
  path: filePath,
  old: z.string().min(1).describe('Exact existing text to replace (must be unique in the file).'),
  new: z.string().describe('Replacement text.'),
})
type EditFileArgs = z.infer<typeof editFileArgs>

export const editFileTool: ToolDefinition<EditFileArgs> = defineWritingTool({
  name: 'edit_file',
  description:
    'Replace the exact text `old` with `new` in a workspace file. `old` must occur exactly once (include enough ' +
    'surrounding context to make it unique); it is matched literally, without line numbers.',
  args: editFileArgs,
  needsApproval: true,
  async run(args, ctx) {
    const abs = await resolveInWorkspace(ctx.workspaceRoot, args.path, { write: true, mustExist: true })
    const text = await readTextFile(abs, args.path)
    const first = text.indexOf(args.old)
    if (first < 0) throw new ToolError('edit_not_found', `The text to replace was not found in ${args.path}.`)
    const second = text.indexOf(args.old, first + 1)
    if (second >= 0) {
      let count = 0
      for (let i = text.indexOf(args.old); i >= 0; i = text.indexOf(args.old, i + 1)) count++
      throw new ToolError(
        'edit_ambiguous',
        `The text to replace occurs ${count} times in ${args.path}; include more surrounding context so it is unique.`,
      )
    }
    const updated = text.slice(0, first) + args.new + text.slice(first + args.old.length)
    await atomicWrite(abs, updated)
    const startLine = text.slice(0, first).split('\n').length
    const endLine = startLine + args.new.split('\n').length - 1
    return `Edited ${args.path}: replaced 1 occurrence (now lines ${startLine}-${endLine}).`
  },
})
