/** A workspace and what the machine answers about it: settings, its first commit, folders, export, search. */
import type { FollowUpMode, Isolation, MergeMode, UpdateMode } from './inputs'
import type { Member } from './members'
import type { ModelPrice } from './money'
import type { StepKind } from './sessions'
import type { Task } from './tasks'
import type { z } from 'zod'
import type { Runner } from '../runners'

export interface Workspace {
  id: string
  name: string
  repoPath: string
  createdAt: string
  /** Set while archived (workspaces.archive): left out of workspaces.list. */
  archivedAt?: string | null
}

/** A workspace's own settings (kept in its harness file). */
export interface WorkspaceSettings {
  /** Variables added to the allow-listed environment of every command in this workspace. Never secrets. */
  commandEnv: Record<string, string>
  /** git_commit runs the repository's hooks; off, hooks never run. */
  gitHooks: boolean
  /** worktree: each started task gets its own branch and worktree; shared: every member writes the user's checkout. */
  isolation: z.infer<typeof Isolation>
  /** The branch tasks start from and merge into (null in a shared workspace that never chose one). */
  baseBranch: string | null
  /** Delete a task's branch once it is merged (its worktree is always removed). */
  deleteMergedBranches: boolean
  /** A flagged member (or the author of evidence made stale) that is idle gets a turn started by Concord. Default on. */
  autoTurns: boolean
  /** A passing implementation report by the assignee on a task in progress delivers it on the report's commit. Default off. */
  autoDeliver: boolean
  /**
   * A delivery asks the team's tester and reviewer (the members whose role fits) for the test and review the task
   * requires and lacks, with the message the card's "Ask" would send. Default on; it asks no one when none fits.
   */
  autoChecks: boolean
  /** New tasks are plan first (a plan approved before any code is written) unless created otherwise. Default off. */
  planFirst: boolean
  /** Moving a task to in progress starts its assignee's turn on it (a message from Concord naming the task). Default on. */
  startAgentOnTaskStart: boolean
  /**
   * A decision changed after a task implementing it was merged: `create` makes the follow-up task at once (default),
   * `offer` leaves it to the user (the edit's answer and preview offer it; tasks.followUp creates it).
   */
  followUps: FollowUpMode
  /** How a task's branch is brought up to date with the base branch (tasks.updateBranch): merge (default) or rebase. */
  updates: UpdateMode
  /**
   * verified (default): the base branch only ever receives a tree a passing test report checked; a merge whose tree
   * would differ is queued (updated, re-verified, then landed). as-accepted: tasks.merge lands what was accepted at
   * once, even a merged tree no report checked.
   */
  merges: MergeMode
  /** Run in the sandbox in a task's new tree, after the files below are copied (e.g. `npm ci`); null: none. */
  setupCommand: string | null
  /** Files and glob patterns (relative to your checkout) copied from it into a task's new tree: `.env`, local config. */
  copyFiles: string[]
  /** The command a task's card can start in its tree and stop (a dev server, the tests); null: none. */
  runCommand: string | null
  /** The setup and run commands may use the network (they are yours, not a member's). Default on. */
  treeNetwork: boolean
  /** The most a task tree's new commits may weigh when Concord brings them into your repository (MB). Default 500. */
  treeTransferLimitMB: number
  /**
   * What built-in members' models cost, US dollars per million tokens (shipped with list prices of a few well-known
   * models; edit to your contract). A model not in it is priced by no one: its cost shows "not reported".
   */
  prices: Record<string, ModelPrice>
  /** US dollars: once the workspace's cost reaches it, Concord starts no automatic turn (null: no budget). */
  budget: number | null
  /**
   * Where an external agent member with no runner of its own runs (issue 36): this machine (default), an SSH host or a
   * container. Built-in members run on this machine whatever it says (harness/members/runners.ts).
   */
  defaultRunner: Runner
}

/** workspaces.firstCommit: the commit made, the branch it started, and the settings now (the base branch is set). */
export interface FirstCommit {
  commit: string
  branch: string
  /** How many files it holds (0 for an empty commit). */
  files: number
  /** Who the commit is by: the user's git identity, or Concord when git has none. */
  author: string
  settings: WorkspaceSettings
}

/** workspaces.open: the workspace and what its folder means for isolation. */
export interface OpenedWorkspace extends Workspace {
  settings: WorkspaceSettings
  /** Plain words for what the user should know (not a git repository, submodules, LFS). */
  notes: string[]
}

/** One folder of the machine running Concord, for choosing a repository without typing its path. */
export interface FolderEntry {
  name: string
  path: string
  /** Has a .git folder or file (a repository or a worktree). */
  isRepo: boolean
}

export interface FolderListing {
  /** Absolute, with symlinks resolved. */
  path: string
  parent: string | null
  home: string
  isRepo: boolean
  /** Sub-folders, hidden ones (.name) left out, sorted by name. */
  folders: FolderEntry[]
  /** More sub-folders than were listed. */
  truncated: boolean
}

export interface ExportResult {
  format: 'madr' | 'markdown' | 'json'
  outDir: string
  /** outDir relative to the repository ('' for its root), or null when outDir lies outside it. */
  folder: string | null
  /** Every file of the export (absolute paths), whether its content changed or not. */
  files: string[]
  /** The files whose content is new or changed (written, or to be written by a dry run). */
  changed: string[]
  /** Concord's earlier files of renamed decisions, removed (or to be removed by a dry run). */
  removed: string[]
  /** True when nothing was written. */
  dryRun: boolean
}

/** The export as a store-only zip: entries are the files' paths relative to the repository. */
export interface ExportDownload {
  name: string
  /**
   * Where the bridge serves the zip, once (`GET /downloads/<id>/<name>`, a path on its origin): the zip was written to
   * a file as it was built, never held whole in memory. Unfetched, it is removed after an hour.
   */
  url: string
  /** The zip's size in bytes. */
  size: number
  /** How many files it holds (their names are in the zip: 100,000 of them would make a large answer). */
  count: number
}

/** What the core can promise about the machine it runs on. Never holds a path of the data folder. */
export interface SystemInfo {
  /** Where members' API keys live: encrypted by a system keychain, or a 0600 file in plain text. */
  secrets: { encrypted: boolean; description: string }
  /** Whether members' commands run in an OS sandbox here, and why not when they do not. */
  sandbox: { available: boolean; kind: 'bwrap' | 'sandbox-exec' | null; reason?: string }
  /** Whether tasks.openTree can open a task's tree here (the desktop app); else the page copies its path. */
  openTree: boolean
}

export interface ArchivedItems {
  members: Member[]
  tasks: Task[]
}

export interface SearchHit {
  stepId: string
  memberId: string
  kind: StepKind
  /** Text around the match; each match sits between SEARCH_MARK_START and SEARCH_MARK_END. */
  snippet: string
  createdAt: string
}

/** Where a record's words matched: its key, a field it has now, or (a decision) one of its earlier revisions. */
export type RecordHitField =
  'key' | 'title' | 'statement' | 'rationale' | 'history' | 'spec' | 'acceptance' | 'summary' | 'claim'

/** A decision, task or report found by search.records. */
export interface RecordHit {
  kind: 'decision' | 'task' | 'report'
  id: string
  key: string
  /** The record's title now; a report's is its kind and task, as its card says ("test of T-1"). */
  title: string
  /** A decision's or task's status, a report's verdict. */
  status: string
  field: RecordHitField
  /** The revision that matched, when field is 'history'. */
  version?: number
  /** The matched text around the words, each match between SEARCH_MARK_START and SEARCH_MARK_END; a key hit's is its title. */
  snippet: string
  /** A report's task. */
  taskId?: string
}

/** The workspace's forge settings (forge.configure); the token itself is never returned. */
export interface ForgeSettings {
  baseUrl: string
  remote: string
  hasToken: boolean
}
