/** git_status, git_diff, git_commit (argument arrays only, never a shell string). */
import { z } from 'zod'
import {
  assertSafeRef,
  gitBranch,
  gitCommitAll,
  gitHead,
  gitStatusPorcelain,
  IGNORE_DIRTY_SUBMODULES,
  runGit,
  type GitContext,
} from '../../platform/git'
import { GIT_OUTPUT_CAP, capText } from './tool-helpers'
import { defineTool, defineWritingTool } from './tool-schema'
import type { ToolContext, ToolDefinition } from './types'
import { workspaceRealRoot } from './workspace-path'

// ---------------------------------------------------------------------------------------------------------------------
// git tools

/**
 * The workspace repository a git tool works in, and what the git helpers take from the tool's context: the member's
 * policy, the interrupt signal, process records.
 */
async function repository(ctx: ToolContext): Promise<{ root: string; g: GitContext }> {
  const root = await workspaceRealRoot(ctx.workspaceRoot)
  return { root, g: { signal: ctx.signal, sandbox: ctx.sandbox, onProcess: ctx.onProcess } }
}

/** The branch checked out, or words for a detached HEAD. */
async function branchName(root: string, g: GitContext): Promise<string> {
  return (await gitBranch(root, g)) ?? '(detached HEAD)'
}

const noArgs = z.object({})
type NoArgs = z.infer<typeof noArgs>

export const gitStatusTool: ToolDefinition<NoArgs> = defineTool({
  name: 'git_status',
  description: 'Show the current branch and `git status --porcelain` of the workspace repository.',
  args: noArgs,
  needsApproval: false,
  async run(_args, ctx) {
    const { root, g } = await repository(ctx)
    const out = await gitStatusPorcelain(root, g)
    const lines = out.split('\n').filter((l) => l.length > 0)
    const header = lines[0]?.startsWith('## ') ? lines.shift()! : ''
    const branch = await branchName(root, g)
    const result = [`Branch: ${branch}`]
    if (header) result.push(header)
    result.push(lines.length ? lines.join('\n') : '(working tree clean)')
    return capText(result.join('\n'), GIT_OUTPUT_CAP)
  },
})

const gitDiffArgs = z.object({
  ref: z.string().optional().describe('Optional revision to diff against, e.g. "HEAD~1" or "main".'),
})
type GitDiffArgs = z.infer<typeof gitDiffArgs>

export const gitDiffTool: ToolDefinition<GitDiffArgs> = defineTool({
  name: 'git_diff',
  description:
    'Show uncommitted changes (working tree, staged or not, against HEAD) as a unified diff, or the working tree ' +
    'against `ref` (a commit, branch, tag or range). Untracked files are listed after the diff.',
  args: gitDiffArgs,
  needsApproval: false,
  async run(args, ctx) {
    if (args.ref !== undefined) assertSafeRef(args.ref)
    const { root, g } = await repository(ctx)
    // No external diff programs or textconv drivers: both come from repository config (see git.ts).
    const base = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', IGNORE_DIRTY_SUBMODULES]
    let diffArgs: string[]
    if (args.ref !== undefined) diffArgs = [...base, args.ref, '--']
    else if (await gitHead(root, g)) diffArgs = [...base, 'HEAD', '--']
    else diffArgs = [...base, '--']
    const diff = (await runGit(root, diffArgs, g)).stdout
    const untracked = (await runGit(root, ['ls-files', '--others', '--exclude-standard'], g)).stdout
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
})

const gitCommitArgs = z.object({
  // min(1) is what the model sees; the refine also refuses a message of spaces (without trimming what is committed).
  message: z
    .string()
    .min(1)
    .refine((m) => m.trim().length > 0, 'message must not be empty')
    .describe('Commit message.'),
})
type GitCommitArgs = z.infer<typeof gitCommitArgs>

export const gitCommitTool: ToolDefinition<GitCommitArgs> = defineWritingTool({
  name: 'git_commit',
  description:
    'Stage every change in the workspace (`git add -A`) and commit it with `message`. Returns the new SHA. ' +
    "The repository's hooks run only if the member's settings allow them.",
  args: gitCommitArgs,
  needsApproval: true,
  async run(args, ctx) {
    const { root, g } = await repository(ctx)
    const sha = await gitCommitAll(root, args.message, g)
    const branch = await branchName(root, g)
    const stat = (
      await runGit(root, ['show', '--stat', '--format=', '--no-color', '--no-ext-diff', '--no-textconv', sha], {
        ...g,
        allowFailure: true,
      })
    ).stdout.trimEnd()
    const subject = args.message.trim().split('\n')[0]
    return `Committed ${sha} on ${branch}: ${subject}${stat ? `\n${capText(stat, 16 * 1024)}` : ''}`
  },
})
