/** How run_command and git run for one member (sandbox.ts). Every field is optional: the defaults are the safe side. */
export interface SandboxPolicy {
  /** Concord's data folder: looks empty inside the sandbox. */
  dataDir?: string
  /** More paths hidden inside the sandbox (folders look empty, files read as empty). */
  hide?: string[]
  /** Network access for commands (default off). */
  network?: boolean
  /** Variables the user sets per workspace, added to the allow-listed environment. Secret-looking names are refused. */
  env?: Record<string, string>
  /** Per-member folder: HOME and TMPDIR live under it (default: os.tmpdir()/concord-scratch-<uid>). */
  scratchDir?: string
  /** git_commit runs the repository's own git programs, hooks and filter drivers, in the sandbox (default off). */
  gitHooks?: boolean
  /**
   * The tree is a read-only checkout (verifying another member's task, or a turn without a task): file tools and
   * git_commit refuse to write, and commands see it read-only (their scratch HOME and TMPDIR stay writable).
   * The words say which checkout it is, for the refusal.
   */
  readOnlyTree?: string
  /**
   * Folders shown read-only although the sandbox hides them: the user's object store, which a task's tree (a clone
   * with alternates) reads its history from. Set by Concord from its own records, never from files in the tree.
   */
  readable?: string[]
  /**
   * The tree is the user's own checkout (a shared workspace): its `.git` is read-only inside the sandbox, so no
   * command plants a hook or config program the user's git would run. Concord's own commit writes it (writableGitDir).
   */
  userCheckout?: boolean
}

/** A command process that just started: its process group, and its start time to recognise it after a crash. */
export interface ProcessInfo {
  pid: number
  pgid: number
  /** /proc/<pid>/stat field 22 on Linux (`ps -o lstart=` elsewhere); see processStartTime. */
  startTime?: string
}

/** Called when a command process starts; the returned function is called when it has ended. */
export type ProcessHook = (info: ProcessInfo) => () => void
