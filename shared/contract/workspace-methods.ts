/** The contract's methods for a workspace and the machine: opening, settings, the forge, folders, providers, export and import, archive, search. */
import { z } from 'zod'
import * as s from '../schemas'
import { RunnerSchema } from '../runners'
import { method, noNul, pathText, r, ws } from './method'

export const workspaceMethods = {
  'workspaces.open': method(
    z.strictObject({
      repoPath: pathText,
      name: z.string().trim().min(1).max(200).optional(),
      /** Default: worktree for a git repository, shared otherwise. */
      isolation: s.Isolation.optional(),
      /** Default: the branch checked out when the workspace is first opened. */
      baseBranch: s.BranchName.optional(),
    }),
    r<s.OpenedWorkspace>(),
  ),
  'workspaces.list': method(z.strictObject({}), r<s.Workspace[]>()),
  'workspaces.settings': method(z.strictObject({ ...ws }), r<s.WorkspaceSettings>()),
  /**
   * Where the workspace's pull requests go: the forge API (default https://api.github.com), the remote pushed to
   * (default origin), the token (kept in the secret store, never returned, logged or given to a member; null removes it).
   */
  'forge.configure': method(
    z.strictObject({
      ...ws,
      baseUrl: z.url().max(2000).optional(),
      remote: z.string().trim().min(1).max(200).optional(),
      token: z.string().trim().min(1).max(1000).nullable().optional(),
    }),
    r<s.ForgeSettings>(),
  ),
  /** Changes the workspace's settings; fields left out keep their value. */
  'workspaces.update': method(
    z.strictObject({
      ...ws,
      /** Replaces the variables added to every command's environment (secret-looking names are refused). */
      commandEnv: z
        .record(z.string().min(1).max(200), z.string().max(4096))
        .refine((e) => Object.keys(e).length <= 100, 'at most 100 variables')
        .optional(),
      /** git_commit runs the repository's hooks (off: hooks never run). */
      gitHooks: z.boolean().optional(),
      isolation: s.Isolation.optional(),
      baseBranch: s.BranchName.optional(),
      deleteMergedBranches: z.boolean().optional(),
      /** Concord starts a turn for a flagged member, or the author of evidence made stale, when it is idle. */
      autoTurns: z.boolean().optional(),
      /** A passing implementation report by the assignee delivers its task on the report's commit. */
      autoDeliver: z.boolean().optional(),
      /** A delivery asks the tester and reviewer for the checks the task requires and lacks. */
      autoChecks: z.boolean().optional(),
      planFirst: z.boolean().optional(),
      /** Moving a task to in progress starts its assignee's turn on it. */
      startAgentOnTaskStart: z.boolean().optional(),
      /** A decision changed after its task was merged: create the follow-up task, or offer it. */
      followUps: s.FollowUpMode.optional(),
      /** How tasks.updateBranch brings the base branch into a task's tree: merge (default) or rebase. */
      updates: s.UpdateMode.optional(),
      /** verified (default): the base only receives a tree a passing test checked (merges queue); as-accepted: land at once. */
      merges: s.MergeMode.optional(),
      /** Run in the sandbox in each new task tree (empty: none). */
      setupCommand: z.string().max(4000).optional(),
      /** Copied from your checkout into each new task tree: paths or globs relative to it (no .., no .git). */
      copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
      /** The command a task's card can start in its tree (empty: none). */
      runCommand: z.string().max(4000).optional(),
      treeNetwork: z.boolean().optional(),
      /** The most a task tree's new commits may weigh when brought into your repository, in MB. */
      treeTransferLimitMB: z.number().int().min(1).max(1_000_000).optional(),
      /** Replaces the price table (US dollars per million tokens, per model). */
      prices: s.PriceTable.optional(),
      /** US dollars; null removes the budget. */
      budget: s.Budget.nullable().optional(),
      /** Where members with no runner of their own run: this machine, an SSH host or a container. */
      defaultRunner: RunnerSchema.optional(),
    }),
    r<s.WorkspaceSettings>(),
  ),
  /**
   * The first commit of a repository that has none (git init and nothing else), so tasks have a base to branch from:
   * an empty commit, or one of the folder's files (what .gitignore leaves). Refused once the repository has a commit.
   */
  'workspaces.firstCommit': method(
    z.strictObject({
      ...ws,
      contents: z.enum(['empty', 'files']),
      message: z.string().trim().min(1).max(1000).optional(),
    }),
    r<s.FirstCommit>(),
  ),
  /** The sub-folders of an absolute path (default: the home folder), to choose a repository. */
  'folders.browse': method(z.strictObject({ path: pathText.optional() }), r<s.FolderListing>()),
  /** The desktop app's native folder dialog; `unsupported` in the browser (use folders.browse). */
  'folders.pick': method(z.strictObject({ title: z.string().max(200).optional() }), r<{ path: string | null }>()),
  /**
   * The models an OpenAI-compatible server lists (GET <baseURL>/models), so the setup can prefill one: asked by
   * Concord, not the page (no CORS, and the key stays out of the page once typed). A server that does not answer
   * with a list (many do not offer one) is no failure of the call: no models, and `unavailable` says why.
   */
  'providers.models': method(
    z.strictObject({
      baseURL: z
        .string()
        .trim()
        .max(2000)
        .regex(/^https?:\/\/\S+$/, 'an http(s) URL'),
      apiKey: z.string().max(1000).optional(),
    }),
    r<{ models: string[]; unavailable?: string }>(),
  ),
  /** What this Concord can promise about the machine it runs on (where keys live); never a path. */
  'system.info': method(z.strictObject({}), r<s.SystemInfo>()),
  /**
   * The desktop app shows a system notification (Electron's, from the main process); `unsupported` in the browser,
   * whose page uses the Notification API itself. The renderer asks only when the user turned notifications on.
   */
  'system.notify': method(
    z.strictObject({ title: z.string().trim().min(1).max(200), body: z.string().max(1000) }),
    r<{ shown: boolean }>(),
  ),

  'export.decisionLog': method(
    z.strictObject({
      ...ws,
      format: z.enum(['madr', 'markdown', 'json']),
      outDir: pathText.optional(),
      /**
       * A folder of the repository, relative to it (the app's folder field); refused with folder_outside_repo when
       * absolute, with a `..` part, or leading outside the repository. Not with outDir.
       */
      folder: pathText.optional(),
      /** The layout of MADR files: strict MADR 4 (default), or what adr-tools or log4brains read. */
      flavour: z.enum(['madr', 'adr-tools', 'log4brains']).optional(),
      /** Plan the export and list its files, writing nothing (the same code path as the real export). */
      dryRun: z.boolean().optional(),
      /**
       * MADR files of Concord's that were changed since they were written (a status adr-tools rewrote, a hand
       * edit) are refused with file_edited, naming each file and its change; true overwrites them.
       */
      overwriteEdited: z.boolean().optional(),
    }),
    r<s.ExportResult>(),
  ),
  /**
   * The export as a zip to download (for `concord serve`, whose browser user may not see the server's checkout):
   * the same files the export would write, at their paths relative to the repository; nothing is written into the
   * repository. The zip is built in slices that leave the server answering, written to a file as it goes, and served
   * once at the answer's `url`.
   */
  'export.download': method(
    z.strictObject({
      ...ws,
      format: z.enum(['madr', 'markdown', 'json']),
      folder: pathText.optional(),
      flavour: z.enum(['madr', 'adr-tools', 'log4brains']).optional(),
    }),
    r<s.ExportDownload>(),
  ),
  'import.workspace': method(
    z.strictObject({ path: pathText, repoPath: pathText, name: z.string().trim().min(1).max(200).optional() }),
    r<s.Workspace>(),
  ),
  /** Out of workspaces.list (its file stays); refused with member_busy while any of its members works. */
  'workspaces.archive': method(z.strictObject({ ...ws }), r<s.Workspace>()),
  'workspaces.restore': method(z.strictObject({ ...ws }), r<s.Workspace>()),
  /** The archived workspaces (for Restore on the welcome screen). */
  'workspaces.archived': method(z.strictObject({}), r<s.Workspace[]>()),
  /** The workspace's archived members and tasks, most recently archived first. */
  'archive.list': method(z.strictObject({ ...ws }), r<s.ArchivedItems>()),
  /**
   * Decisions (title, statement, rationale and their earlier revisions), tasks (title, spec, acceptance criteria)
   * and reports (summary, claims) whose words match, or whose key the query is (`R-6`, `d-1`: that one first).
   * Plain text, as sessions.search; newest first within each kind, up to `limit` of each.
   */
  'search.records': method(
    z.strictObject({ ...ws, query: noNul(z.string().max(500)), limit: z.number().int().min(1).max(50).optional() }),
    r<s.RecordHit[]>(),
  ),
} as const
