/**
 * Raised when its arguments or the world refuse a call (a tool, a git call, a command's environment), with a stable
 * `code`; the agent loop turns it into an error observation.
 */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ToolError'
  }
}
