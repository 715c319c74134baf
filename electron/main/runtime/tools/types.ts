import type { z } from 'zod'
import type { ProcessHook, SandboxPolicy } from '../../platform/sandbox-policy'
import { ToolError } from '../../platform/tool-error'

export interface ToolContext {
  /** Absolute, real path of the workspace (repository) folder. Every path a tool touches must stay inside it. */
  workspaceRoot: string
  /** Aborted when the member's turn is interrupted. */
  signal: AbortSignal
  /** The member's sandbox policy; undefined means the defaults (no network, shared scratch, nothing extra hidden). */
  sandbox?: SandboxPolicy
  /** Called when a command process starts; the returned function is called when it has ended. */
  onProcess?: ProcessHook
}

export interface ToolDefinition<Args = unknown, Ctx extends ToolContext = ToolContext> {
  name: string
  description: string
  /** JSON Schema handed to the model, derived from `args` (defineTool, tool-schema.ts). */
  parameters: Record<string, unknown>
  /** Validates the model's (already JSON-parsed) arguments; the agent loop parses once and `run` gets the result. */
  args: z.ZodType<Args>
  /**
   * True when the member's approval policy applies (`ask` waits for the human); a function decides per call
   * (update_task_status waits only when it cancels).
   */
  needsApproval: boolean | ((args: Args) => boolean)
  /** Returns the observation text shown to the model (may be long: the view cuts it, the store keeps it whole). */
  run(args: Args, ctx: Ctx): Promise<string>
}

/** Refuses a write in a read-only checkout, saying which checkout it is and where writing is possible. */
export function assertWritableTree(ctx: ToolContext, what: string): void {
  const tree = ctx.sandbox?.readOnlyTree
  if (tree)
    throw new ToolError(
      'read_only',
      `${what} refused: you are in ${tree}, which is read-only. Report what you found instead (submit_report), or work on a task assigned to you.`,
    )
}
