/**
 * The repository tools an agent uses inside one workspace folder (a git repository).
 *
 * Every path argument is relative to the workspace root and goes through `resolveInWorkspace`, so nothing outside the
 * workspace (directly, via `..`, or via symlinks) is read or written, and nothing under `.git` is written.
 *
 * Output conventions:
 * - read_file numbers lines like `cat -n`: `<right-aligned line number><TAB><line>`; the number and tab are not part of
 *   the file. `offset` is the 1-based first line, `limit` the number of lines (default 2000).
 * - list_files lists recursively (breadth first) with workspace-relative paths, directories with a trailing '/',
 *   symlinks with a trailing '@' (never followed), skipping `.git` and not descending into `node_modules`.
 * - search_text prints `path:line: text` (case-sensitive plain substring).
 * - run_command prints the interleaved stdout+stderr and a final `[exit code: N]` line.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Dirent } from 'node:fs'
import { chmod, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { assertSafeRef, gitBranch, gitCommitAll, gitHead, gitStatusPorcelain, runGit, sanitizedEnv } from './git'
import { ToolError, type ToolContext, type ToolDefinition } from './types'
import { resolveInWorkspace, toWorkspaceRelative, workspaceRealRoot } from './workspace-path'

export const MAX_READ_BYTES = 2 * 1024 * 1024
export const DEFAULT_READ_LINES = 2000
const MAX_LINE_CHARS = 2000
export const LIST_CAP = 1000
export const SEARCH_CAP = 200
const SEARCH_LINE_CHARS = 300
export const COMMAND_OUTPUT_CAP = 64 * 1024
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000
export const MAX_COMMAND_TIMEOUT_MS = 10 * 60_000
const KILL_GRACE_MS = 500
const GIT_OUTPUT_CAP = 256 * 1024
/** Directories search_text skips and list_files does not descend into. */
const SKIP_DIRS = new Set(['node_modules'])

// ---------------------------------------------------------------------------------------------------------------------
// helpers

function parseArgs<T>(schema: z.ZodType<T>, raw: unknown, tool: string): T {
  const r = schema.safeParse(raw ?? {})
  if (r.success) return r.data
  const detail = r.error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`)
    .join('; ')
  throw new ToolError('invalid_arguments', `Invalid arguments for ${tool}: ${detail}`)
}

function checkAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError('aborted', 'Interrupted.')
}

function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0)
}

/** Keeps the first and last `cap/2` characters of a long text with a marker in between. */
function capText(text: string, cap: number): string {
  if (text.length <= cap) return text
  const half = Math.floor(cap / 2)
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters omitted ...]\n${text.slice(-half)}`
}

async function readTextFile(abs: string, rel: string): Promise<string> {
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
async function atomicWrite(abs: string, content: string): Promise<boolean> {
  let existedMode: number | null = null
  try {
    const st = await stat(abs)
    if (st.isDirectory()) throw new ToolError('not_a_file', 'Target is a directory.')
    existedMode = st.mode & 0o7777
  } catch (err) {
    if (err instanceof ToolError) throw err
  }
  await mkdir(path.dirname(abs), { recursive: true })
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
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

function objectSchema(properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false }
}

// ---------------------------------------------------------------------------------------------------------------------
// read_file

const readFileArgs = z.object({
  path: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
})
type ReadFileArgs = z.infer<typeof readFileArgs>

const readFileTool: ToolDefinition<ReadFileArgs> = {
  name: 'read_file',
  description:
    'Read a UTF-8 text file in the workspace. Output is line-numbered like `cat -n` ("<n>\\t<line>"); the numbers ' +
    'and tab are NOT part of the file. offset = 1-based first line (default 1), limit = number of lines (default ' +
    `${DEFAULT_READ_LINES}). Binary files and files over 2 MB are refused.`,
  parameters: objectSchema(
    {
      path: { type: 'string', description: 'File path relative to the workspace root.' },
      offset: { type: 'integer', minimum: 1, description: '1-based line number to start at.' },
      limit: { type: 'integer', minimum: 1, description: `Maximum number of lines (default ${DEFAULT_READ_LINES}).` },
    },
    ['path'],
  ),
  args: readFileArgs,
  needsApproval: false,
  async run(raw, ctx) {
    const args = parseArgs(readFileArgs, raw, 'read_file')
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
      let line = lines[n - 1].replace(/\r$/, '')
      if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)}… [line truncated, ${line.length} chars]`
      out.push(`${String(n).padStart(width)}\t${line}`)
    }
    if (start > 1 || end < total) {
      const more = end < total ? `; call read_file with offset=${end + 1} to continue` : ''
      out.push(`[showing lines ${start}-${end} of ${total}${more}]`)
    }
    return out.join('\n')
  },
}

// ---------------------------------------------------------------------------------------------------------------------
// list_files

const listFilesArgs = z.object({ path: z.string().optional() })
type ListFilesArgs = z.infer<typeof listFilesArgs>

async function readDirSorted(abs: string): Promise<Dirent[]> {
  const entries = await readdir(abs, { withFileTypes: true })
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

const listFilesTool: ToolDefinition<ListFilesArgs> = {
  name: 'list_files',
  description:
    'List files under a directory of the workspace (default: the root), recursively, breadth first. Paths are ' +
    "relative to the workspace root; directories end with '/', symlinks with '@' (not followed). .git is skipped and " +
    `node_modules is not descended into. At most ${LIST_CAP} entries; list a subdirectory to see more.`,
  parameters: objectSchema({
    path: { type: 'string', description: 'Directory relative to the workspace root (default ".").' },
  }),
  args: listFilesArgs,
  needsApproval: false,
  async run(raw, ctx) {
    const args = parseArgs(listFilesArgs, raw, 'list_files')
    const rel = args.path ?? '.'
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const abs = await resolveInWorkspace(ctx.workspaceRoot, rel, { mustExist: true })
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
}

// ---------------------------------------------------------------------------------------------------------------------
// search_text

const searchTextArgs = z.object({ query: z.string().min(1), path: z.string().optional() })
type SearchTextArgs = z.infer<typeof searchTextArgs>

const searchTextTool: ToolDefinition<SearchTextArgs> = {
  name: 'search_text',
  description:
    'Case-sensitive plain substring search over the text files of the workspace (or under `path`, a directory or ' +
    'file). Skips .git, node_modules, symlinks, binary files and files over 2 MB. Output lines are ' +
    `"path:line: text". At most ${SEARCH_CAP} matches.`,
  parameters: objectSchema(
    {
      query: { type: 'string', minLength: 1, description: 'Exact text to look for (not a regex).' },
      path: { type: 'string', description: 'Directory or file relative to the workspace root (default ".").' },
    },
    ['query'],
  ),
  args: searchTextArgs,
  needsApproval: false,
  async run(raw, ctx) {
    const args = parseArgs(searchTextArgs, raw, 'search_text')
    const rel = args.path ?? '.'
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const abs = await resolveInWorkspace(ctx.workspaceRoot, rel, { mustExist: true })
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
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i].includes(args.query)) continue
        if (matches.length >= SEARCH_CAP) {
          truncated = true
          return
        }
        let line = lines[i].replace(/\r$/, '')
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
}

// ---------------------------------------------------------------------------------------------------------------------
// write_file / edit_file

const writeFileArgs = z.object({ path: z.string().min(1), content: z.string() })
type WriteFileArgs = z.infer<typeof writeFileArgs>

const writeFileTool: ToolDefinition<WriteFileArgs> = {
  name: 'write_file',
  description:
    'Create or overwrite a text file in the workspace with `content` (parent directories are created; the write is ' +
    'atomic). Writing inside .git is not allowed.',
  parameters: objectSchema(
    {
      path: { type: 'string', description: 'File path relative to the workspace root.' },
      content: { type: 'string', description: 'The complete new file content.' },
    },
    ['path', 'content'],
  ),
  args: writeFileArgs,
  needsApproval: true,
  async run(raw, ctx) {
    const args = parseArgs(writeFileArgs, raw, 'write_file')
    checkAborted(ctx.signal)
    const abs = await resolveInWorkspace(ctx.workspaceRoot, args.path, { write: true })
    const created = await atomicWrite(abs, args.content)
    const bytes = Buffer.byteLength(args.content, 'utf8')
    return `${created ? 'Created' : 'Overwrote'} ${args.path} (${bytes} bytes).`
  },
}

const editFileArgs = z.object({ path: z.string().min(1), old: z.string().min(1), new: z.string() })
type EditFileArgs = z.infer<typeof editFileArgs>

const editFileTool: ToolDefinition<EditFileArgs> = {
  name: 'edit_file',
  description:
    'Replace the exact text `old` with `new` in a workspace file. `old` must occur exactly once (include enough ' +
    'surrounding context to make it unique); it is matched literally, without line numbers.',
  parameters: objectSchema(
    {
      path: { type: 'string', description: 'File path relative to the workspace root.' },
      old: { type: 'string', minLength: 1, description: 'Exact existing text to replace (must be unique in the file).' },
      new: { type: 'string', description: 'Replacement text.' },
    },
    ['path', 'old', 'new'],
  ),
  args: editFileArgs,
  needsApproval: true,
  async run(raw, ctx) {
    const args = parseArgs(editFileArgs, raw, 'edit_file')
    checkAborted(ctx.signal)
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
}

// ---------------------------------------------------------------------------------------------------------------------
// run_command

const runCommandArgs = z.object({
  command: z.string().min(1),
  timeoutMs: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_MS).optional(),
})
type RunCommandArgs = z.infer<typeof runCommandArgs>

/** Collects output up to `cap` bytes, keeping the head and the tail. */
class HeadTailBuffer {
  private head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  total = 0
  constructor(private readonly half: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length
    if (this.headBytes < this.half) {
      const take = Math.min(chunk.length, this.half - this.headBytes)
      this.head.push(chunk.subarray(0, take))
      this.headBytes += take
      chunk = chunk.subarray(take)
      if (chunk.length === 0) return
    }
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    while (this.tailBytes > this.half) {
      const excess = this.tailBytes - this.half
      const first = this.tail[0]
      if (first.length <= excess) {
        this.tail.shift()
        this.tailBytes -= first.length
      } else {
        this.tail[0] = first.subarray(excess)
        this.tailBytes -= excess
      }
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8')
    const tail = Buffer.concat(this.tail).toString('utf8')
    const omitted = this.total - this.headBytes - this.tailBytes
    if (omitted <= 0) return head + tail
    return `${head}\n[... ${omitted} bytes of output omitted ...]\n${tail}`
  }
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(-pid, sig)
  } catch {
    // already gone
  }
}

interface CommandResult {
  output: string
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
}

function runShell(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const buf = new HeadTailBuffer(COMMAND_OUTPUT_CAP / 2)
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      detached: true, // own process group, so the whole tree can be killed
      stdio: ['ignore', 'pipe', 'pipe'],
      env: sanitizedEnv(),
      windowsHide: true,
    })
    let timedOut = false
    let aborted = false
    let exitCode: number | null = null
    let exitSignal: NodeJS.Signals | null = null
    let settled = false
    let killTimer: NodeJS.Timeout | undefined
    let drainTimer: NodeJS.Timeout | undefined

    const terminate = (): void => {
      killGroup(child.pid, 'SIGTERM')
      killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS)
    }
    const timer = setTimeout(() => {
      timedOut = true
      terminate()
    }, timeoutMs)
    const onAbort = (): void => {
      aborted = true
      terminate()
    }
    signal.addEventListener('abort', onAbort, { once: true })

    const finish = (): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(drainTimer)
      signal.removeEventListener('abort', onAbort)
      // Background processes left in the group do not outlive the command.
      killGroup(child.pid, 'SIGKILL')
      clearTimeout(killTimer)
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({ output: buf.toString(), exitCode, signal: exitSignal, timedOut, aborted })
    }

    child.stdout!.on('data', (c: Buffer) => buf.push(c))
    child.stderr!.on('data', (c: Buffer) => buf.push(c))
    child.on('error', (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(killTimer)
      signal.removeEventListener('abort', onAbort)
      reject(new ToolError('command_failed', `Could not start the command: ${err.message}`))
    })
    child.on('exit', (code, sig) => {
      exitCode = code
      exitSignal = sig
      // If a background process still holds the pipes open, stop waiting for them shortly.
      drainTimer = setTimeout(finish, 200)
    })
    child.on('close', finish)
    if (signal.aborted) onAbort()
  })
}

const runCommandTool: ToolDefinition<RunCommandArgs> = {
  name: 'run_command',
  description:
    'Run a shell command (via /bin/sh -c) with the workspace root as the working directory. Returns stdout and ' +
    `stderr interleaved (long output keeps the first and last ${COMMAND_OUTPUT_CAP / 2048} KB) and the exit code. ` +
    `Default timeout ${DEFAULT_COMMAND_TIMEOUT_MS / 1000}s, max ${MAX_COMMAND_TIMEOUT_MS / 60000} min; on timeout ` +
    'the whole process group is killed. Background processes do not survive the command. No stdin.',
  parameters: objectSchema(
    {
      command: { type: 'string', minLength: 1, description: 'Shell command line.' },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_COMMAND_TIMEOUT_MS,
        description: `Timeout in milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`,
      },
    },
    ['command'],
  ),
  args: runCommandArgs,
  needsApproval: true,
  async run(raw, ctx) {
    const args = parseArgs(runCommandArgs, raw, 'run_command')
    checkAborted(ctx.signal)
    const cwd = await workspaceRealRoot(ctx.workspaceRoot)
    const timeoutMs = args.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
    const r = await runShell(args.command, cwd, timeoutMs, ctx.signal)
    const body = r.output.length > 0 ? (r.output.endsWith('\n') ? r.output : `${r.output}\n`) : ''
    if (r.aborted) {
      throw new ToolError('aborted', `Command interrupted; its process group was killed.\n${body}`.trimEnd())
    }
    let status: string
    if (r.timedOut) status = `[timed out after ${timeoutMs} ms; process group killed]`
    else if (r.exitCode !== null) status = `[exit code: ${r.exitCode}]`
    else status = `[killed by signal ${r.signal ?? 'unknown'}]`
    return `${body}${status}`
  },
}

// ---------------------------------------------------------------------------------------------------------------------
// git tools

const noArgs = z.object({})
type NoArgs = z.infer<typeof noArgs>

const gitStatusTool: ToolDefinition<NoArgs> = {
  name: 'git_status',
  description: 'Show the current branch and `git status --porcelain` of the workspace repository.',
  parameters: objectSchema({}),
  args: noArgs,
  needsApproval: false,
  async run(raw, ctx) {
    parseArgs(noArgs, raw, 'git_status')
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const out = await gitStatusPorcelain(root, ctx.signal)
    const lines = out.split('\n').filter((l) => l.length > 0)
    const header = lines[0]?.startsWith('## ') ? lines.shift()! : ''
    const branch = (await gitBranch(root)) ?? '(detached HEAD)'
    const result = [`Branch: ${branch}`]
    if (header) result.push(header)
    result.push(lines.length ? lines.join('\n') : '(working tree clean)')
    return capText(result.join('\n'), GIT_OUTPUT_CAP)
  },
}

const gitDiffArgs = z.object({ ref: z.string().optional() })
type GitDiffArgs = z.infer<typeof gitDiffArgs>

const gitDiffTool: ToolDefinition<GitDiffArgs> = {
  name: 'git_diff',
  description:
    'Show uncommitted changes (working tree, staged or not, against HEAD) as a unified diff, or the working tree ' +
    'against `ref` (a commit, branch, tag or range). Untracked files are listed after the diff.',
  parameters: objectSchema({
    ref: { type: 'string', description: 'Optional revision to diff against, e.g. "HEAD~1" or "main".' },
  }),
  args: gitDiffArgs,
  needsApproval: false,
  async run(raw, ctx) {
    const args = parseArgs(gitDiffArgs, raw, 'git_diff')
    if (args.ref !== undefined) assertSafeRef(args.ref)
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const base = ['diff', '--no-color', '--no-ext-diff', '--no-textconv']
    let diffArgs: string[]
    if (args.ref !== undefined) diffArgs = [...base, args.ref, '--']
    else if (await gitHead(root)) diffArgs = [...base, 'HEAD', '--']
    else diffArgs = [...base, '--']
    const diff = (await runGit(root, diffArgs, { signal: ctx.signal })).stdout
    const untracked = (
      await runGit(root, ['ls-files', '--others', '--exclude-standard'], { signal: ctx.signal })
    ).stdout
      .split('\n')
      .filter((l) => l.length > 0)
    let out = diff.length > 0 ? diff.trimEnd() : '(no differences)'
    if (untracked.length > 0) {
      const shown = untracked.slice(0, 200)
      out += `\n\nUntracked files (not in the diff):\n${shown.join('\n')}`
      if (untracked.length > shown.length) out += `\n[... and ${untracked.length - shown.length} more]`
    }
    return capText(out, GIT_OUTPUT_CAP)
  },
}

const gitCommitArgs = z.object({ message: z.string().refine((m) => m.trim().length > 0, 'message must not be empty') })
type GitCommitArgs = z.infer<typeof gitCommitArgs>

const gitCommitTool: ToolDefinition<GitCommitArgs> = {
  name: 'git_commit',
  description: 'Stage every change in the workspace (`git add -A`) and commit it with `message`. Returns the new SHA.',
  parameters: objectSchema(
    { message: { type: 'string', minLength: 1, description: 'Commit message.' } },
    ['message'],
  ),
  args: gitCommitArgs,
  needsApproval: true,
  async run(raw, ctx) {
    const args = parseArgs(gitCommitArgs, raw, 'git_commit')
    checkAborted(ctx.signal)
    const root = await workspaceRealRoot(ctx.workspaceRoot)
    const sha = await gitCommitAll(root, args.message, ctx.signal)
    const branch = (await gitBranch(root)) ?? '(detached HEAD)'
    const stat = (
      await runGit(root, ['show', '--stat', '--format=', '--no-color', sha], { allowFailure: true })
    ).stdout.trimEnd()
    const subject = args.message.trim().split('\n')[0]
    return `Committed ${sha} on ${branch}: ${subject}${stat ? `\n${capText(stat, 16 * 1024)}` : ''}`
  },
}

// ---------------------------------------------------------------------------------------------------------------------

export function repoTools(): ToolDefinition<any>[] {
  return [
    readFileTool,
    listFilesTool,
    searchTextTool,
    writeFileTool,
    editFileTool,
    runCommandTool,
    gitStatusTool,
    gitDiffTool,
    gitCommitTool,
  ]
}

/** Context helper for callers that only have a root and a signal. */
export function toolContext(workspaceRoot: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return { workspaceRoot, signal }
}
