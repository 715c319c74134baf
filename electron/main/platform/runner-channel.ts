/**
 * The way to a runner, another machine a member works on (an SSH host, a container): run a program there with bytes
 * on its stdin and read what it printed, or start one there whose stdio stays joined to a local process (the agent
 * over ACP). No protocol or daemon of Concord's own runs on the runner: each call is its own program started through
 * the runner's own channel (ssh, `podman exec`).
 */

/** What a program run on the runner printed, and how it ended. */
export interface RunnerResult {
  code: number
  stdout: Buffer
  stderr: string
}

export interface RunnerChannel {
  /** The runner in words, for messages: "SSH host runner1". */
  readonly label: string
  /** Why what runs there is confined by the runner itself (a container), in words; absent: it is not. */
  readonly confined?: string
  /**
   * A folder of this machine's that the runner sees (a mount) at `there`: the agent's socket to Concord is made in
   * `here`, not forwarded over the channel.
   */
  readonly sockets?: { here: string; there: string }
  /** Makes the runner ready before the first call (a container started); calls do it too. */
  prepare?(): Promise<void>
  /** Runs `argv` on the runner (no shell of its own in between), `input` on its stdin. */
  run(argv: string[], opts?: { input?: Buffer | string; timeoutMs?: number }): Promise<RunnerResult>
  /**
   * The local program (its arguments and environment) that runs `argv` on the runner with its stdio joined to the local one's,
   * for as long as that process lives; `socket` joins a Unix socket on the runner to one on this machine (the way
   * the agent reaches Concord's tools: never a port open to the network).
   */
  spawn(
    argv: string[],
    socket?: { remote: string; local: string },
  ): { file: string; args: string[]; env: Record<string, string> }
}
