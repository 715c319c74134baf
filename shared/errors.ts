/** Stable error codes of the API. The message is for a person; the code is for code. */
export const errorCodes = [
  'invalid_params',
  'not_found',
  'version_conflict',
  'forbidden',
  'evidence_stale',
  'evidence_missing',
  'invalid_transition',
  'task_blocked',
  'schema_too_new',
  'unknown_method',
  'unauthorized',
  'provider_error',
  /** Concord itself is busy (shutting down); storage_busy is a locked database. */
  'busy',
  'io_error',
  'storage_full',
  'storage_corrupt',
  'storage_readonly',
  'storage_busy',
  'payload_too_large',
  'unsupported',
  'invalid_artifact',
  /** A member with running work (a turn, an approval waiting, queued messages) cannot be archived until idle. */
  'member_busy',
  'uncommitted_changes',
  'merge_blocked',
  'merge_conflict',
  /** The base branch moved since the task's evidence was made: what would land is not the tree its reports checked. */
  'base_moved',
  /** A verified merge needs a member who can take the turn that verifies it (a tester, a reviewer): none can. */
  'merge_unverifiable',
  /** A head (delivered, or brought up to date) that still holds git's conflict markers in some files. */
  'conflict_markers',
  /** A task's branch cannot be brought up to date now (its tree is mid-merge, has uncommitted changes, or is gone). */
  'update_blocked',
  /** A revert to the version the decision is already at (or to content it already has). */
  'already_current',
  /** Another Concord (the app or `concord serve`) runs on this data folder; one at a time. */
  'data_dir_locked',
  /** The repository has no commit yet (git init and nothing else): tasks have nothing to branch from. */
  'no_commit',
  /** A folder given relative to the repository that is absolute, has a `..` part or leads outside it. */
  'folder_outside_repo',
  /** A member of the same name is already in the workspace (copying another workspace's team): nothing was copied. */
  'name_taken',
  /** A repository folder that is, lies inside or holds Concord's data folder (where every key is kept). */
  'data_folder_repo',
  /** A task tree's commits hold objects git calls broken (a malformed commit): not brought into the user's repository. */
  'invalid_objects',
  /** A task tree's new commits weigh more than the workspace's treeTransferLimitMB: not brought over. */
  'transfer_too_large',
  /** A runner (an SSH host, a container) failed a transfer of a task's tree or a command Concord ran there. */
  'runner_failed',
  /** A task's tree on a runner is at a commit that does not descend from the task's base: not brought back. */
  'runner_off_base',
  /** A plan decision (approve, request changes, reject) on a task with no plan waiting for one. */
  'plan_not_pending',
  /** A plan submitted with no text. */
  'plan_empty',
  /** A diff comment on a file the task's diff does not change. */
  'path_not_in_diff',
  /** A diff comment on lines the file does not have (or a range that ends before it starts). */
  'line_out_of_range',
  /** Push and pull request: the workspace's repository has no such remote (or none at all). */
  'no_remote',
  /** The remote's URL is not a github.com repository (ssh or https form): no pull request can be opened there. */
  'not_github_remote',
  /** git push failed; details.stderr is git's own words (with any credentials in URLs taken out). */
  'push_failed',
  /** The forge answered with an error; details.status and details.message are its own. */
  'forge_error',
  /** No forge token is in the secret store (forge.configure sets it). */
  'no_token',
  /** "Try it with…" named fewer than 2 distinct members: one attempt is just a start. */
  'too_few_attempts',
  /** "Try it with…" named more than 4 members. */
  'too_many_attempts',
  /** An export would overwrite a file of Concord's that was changed since it was written; details.files name them. */
  'file_edited',
  /** An image sent with a message that is not PNG, JPEG, GIF or WebP, or whose bytes are not of the type it names. */
  'image_unsupported',
  /**
   * A member's runner (an SSH host, a container engine) cannot be reached or run anything; the message names it and
   * its own words (ssh's last line, the engine's stderr).
   */
  'runner_unreachable',
  /** A runner has no git on its PATH: task trees live where a member runs, so git must be there. */
  'runner_no_git',
  /** A runner does not have the member's agent command on its PATH. */
  'runner_no_agent',
  /** A runner other than this machine for a built-in member: only external agents (ACP) run on a runner yet. */
  'runner_needs_agent',
  /** A container runner's image is not in the engine's store (Concord never pulls one); the message names the image. */
  'runner_no_image',
  'internal',
] as const

export type ErrorCode = (typeof errorCodes)[number]

export interface ApiErrorShape {
  code: ErrorCode
  message: string
  /** Extra machine-readable detail, e.g. the acceptance reasons. */
  details?: unknown
}

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  toJSON(): ApiErrorShape {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details }
  }
}

export const httpStatusOf: Record<ErrorCode, number> = {
  invalid_params: 400,
  not_found: 404,
  path_not_in_diff: 400,
  plan_not_pending: 409,
  plan_empty: 400,
  line_out_of_range: 400,
  too_few_attempts: 400,
  too_many_attempts: 400,
  unknown_method: 404,
  version_conflict: 409,
  evidence_stale: 409,
  evidence_missing: 409,
  invalid_transition: 409,
  task_blocked: 409,
  busy: 409,
  forbidden: 403,
  unauthorized: 401,
  schema_too_new: 422,
  provider_error: 502,
  io_error: 500,
  storage_full: 507,
  // Damaged files do not heal by retrying: 500, not 503.
  storage_corrupt: 500,
  storage_readonly: 503,
  storage_busy: 503,
  payload_too_large: 413,
  unsupported: 501,
  image_unsupported: 415,
  invalid_artifact: 400,
  member_busy: 409,
  uncommitted_changes: 409,
  merge_blocked: 409,
  merge_conflict: 409,
  base_moved: 409,
  merge_unverifiable: 409,
  already_current: 409,
  file_edited: 409,
  conflict_markers: 409,
  update_blocked: 409,
  data_dir_locked: 409,
  no_commit: 409,
  folder_outside_repo: 400,
  name_taken: 409,
  data_folder_repo: 400,
  invalid_objects: 422,
  transfer_too_large: 413,
  runner_failed: 502,
  runner_off_base: 409,
  no_remote: 409,
  not_github_remote: 409,
  push_failed: 502,
  forge_error: 502,
  no_token: 409,
  runner_unreachable: 502,
  // The host answers; what the member needs is not installed there.
  runner_no_git: 424,
  runner_no_agent: 424,
  runner_needs_agent: 409,
  runner_no_image: 409,
  internal: 500,
}
