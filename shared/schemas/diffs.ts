/** What a tree changed: diffs, a turn's commits and files, the user's runs in a task's tree, comments on a diff. */
import type { DiffCommentSide } from './inputs'
import type { z } from 'zod'

export interface DiffFile {
  path: string
  /** The path before a rename or copy. */
  oldPath: string | null
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed'
  /** null for a binary file. */
  additions: number | null
  deletions: number | null
}

export interface TaskDiff {
  /** Full SHAs compared. */
  base: string
  head: string
  files: DiffFile[]
  /** Unified diff from git, cut at a limit (then truncated is true and the patch ends with a marker line). */
  patch: string
  truncated: boolean
  /** Files changed in the task's worktree but not committed: not part of head, so not in this diff. */
  uncommitted: string[]
  /** sessions.changes only: the commits the turn's tree was at, by which the diff is named (base and head are trees). */
  turn?: TurnCommits
  /**
   * tasks.diff of a merged task: the diff is what was merged (its change against the base it was merged on, not the
   * base branch now, which holds it). `onto`: the base branch's head the merge was made on (null for a merge made
   * before Concord kept it); `branch`: the base branch's name.
   */
  merged?: { commit: string; onto: string | null; branch: string | null }
}

/** The commits around one turn: where its tree was before and after, and the commits it made. */
export interface TurnCommits {
  /** null: the tree had no commit, or the turn was recorded before commits were kept. */
  fromCommit: string | null
  toCommit: string | null
  /** The tree had changes not committed at fromCommit when the turn began (they are in the diff's base). */
  uncommittedBefore: boolean
  /** Some of the turn's changes are not committed at toCommit (they are in the diff's head). */
  uncommittedAfter: boolean
  /** The commits the turn made, oldest first (up to 50). */
  commits: { sha: string; subject: string }[]
}

/** The files one turn changed in its tree (on the turn's last step). */
export interface TurnChange {
  path: string
  status: DiffFile['status']
}

/** A command Concord ran in a task's tree for the user: the setup (with the files copied first) or the run command. */
export interface TreeRun {
  taskId: string
  kind: 'setup' | 'run'
  /** null: a setup that only copied files. */
  command: string | null
  /** interrupted: a setup Concord was stopped during (killed, crashed); it runs again before the next turn in the tree. */
  state: 'running' | 'passed' | 'failed' | 'stopped' | 'interrupted'
  exitCode: number | null
  /** Output, stdout and stderr interleaved, first and last 32 KB kept; the copy's own lines first for a setup. */
  output: string
  /** Setup: the files copied from the checkout, and those refused (a symlink out of it, a path in the tree taken). */
  copied: string[]
  refused: string[]
  /** false: no OS sandbox here, the command ran with the allow-listed environment only. */
  sandboxed: boolean
  /** The files the command runs (the script it names, package.json for `npm run`…) with their git blob ids as run. */
  scripts?: Record<string, string>
  /**
   * Those of them a member changed since the user last ran the command (before any run: since the task's base): the
   * command ran with the network off this once (issue 32).
   */
  memberChanged?: string[]
  /** Whether the command had the network. */
  network?: boolean
  startedAt: string
  endedAt: string | null
}

/**
 * A comment on a line or a range of lines of a task's diff (issue 33): a draft until sent to the assignee with the
 * others (diffComments.send), resolved when a later delivery changes those lines.
 */
export interface DiffComment {
  id: string
  taskId: string
  path: string
  startLine: number
  endLine: number
  side: z.infer<typeof DiffCommentSide>
  /** The commit the comment was made on (the head the Changes view showed). */
  commit: string
  /** The lines commented on, as they were in that commit. */
  quoted: string
  body: string
  state: 'draft' | 'sent' | 'resolved'
  createdAt: string
  sentAt: string | null
  resolvedAt: string | null
  /** The delivery that changed the lines. */
  resolvedCommit: string | null
}
