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
import { runCommandTool } from './command-tool'
import { editFileTool, listFilesTool, readFileTool, searchTextTool, writeFileTool } from './file-tools'
import { gitCommitTool, gitDiffTool, gitStatusTool } from './git-tools'
import type { ToolDefinition } from './types'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools with different argument types in one list; each `run` only ever gets what its own `args` parsed
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
