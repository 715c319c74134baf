import type { z } from 'zod'

/** Raised by a tool when its arguments or the world refuse the call; the loop turns it into an error observation. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ToolError'
  }
}

export interface ToolContext {
  /** Absolute, real path of the workspace (repository) folder. Every path a tool touches must stay inside it. */
  workspaceRoot: string
  /** Aborted when the member's turn is interrupted. */
  signal: AbortSignal
}

export interface ToolDefinition<Args = unknown, Ctx extends ToolContext = ToolContext> {
  name: string
  description: string
  /** JSON Schema handed to the model. */
  parameters: Record<string, unknown>
  /** Validates the model's (already JSON-parsed) arguments. */
  args: z.ZodType<Args>
  /** True when the member's approval policy applies (`ask` waits for the human). */
  needsApproval: boolean
  /** Returns the observation text shown to the model (may be long: the view cuts it, the store keeps it whole). */
  run(args: Args, ctx: Ctx): Promise<string>
}
