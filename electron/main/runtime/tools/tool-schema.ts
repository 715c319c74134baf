/** A tool's JSON Schema is derived from its zod `args`, so what the model is shown and what is validated cannot drift. */
import { z } from 'zod'
import { checkAborted } from './tool-helpers'
import { assertWritableTree, type ToolContext, type ToolDefinition } from './types'

/**
 * The JSON Schema the model sees for `args`: the input side (optional fields not required), every object
 * closed (`additionalProperties: false`, as OpenAI's strict mode wants) with a `required` list, and without
 * the `$schema` key and the safe-integer bounds zod adds to every `.int()`, which only add noise to a prompt.
 */
export function jsonSchemaOf(args: z.ZodType): Record<string, unknown> {
  const schema = z.toJSONSchema(args, {
    io: 'input',
    unrepresentable: 'throw',
    override: ({ jsonSchema: s }) => {
      if (s.type === 'object') {
        s.additionalProperties = false
        s.required ??= []
      }
      if (s.type === 'integer') {
        if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum
        if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum
      }
    },
  }) as Record<string, unknown>
  delete schema.$schema
  return schema
}

/**
 * A tool whose `parameters` come from its `args`, derived when first read (deriving every tool's schema when
 * its module loads was about 30 ms of `concord serve`'s start, before the first request), then kept.
 */
export function defineTool<Args, Ctx extends ToolContext = ToolContext>(
  tool: Omit<ToolDefinition<Args, Ctx>, 'parameters'>,
): ToolDefinition<Args, Ctx> {
  let parameters: Record<string, unknown> | undefined
  return {
    ...tool,
    get parameters() {
      return (parameters ??= jsonSchemaOf(tool.args))
    },
  }
}

/**
 * A tool that writes to the tree (a file, a commit): before it runs, an interrupted turn stops it and a read-only
 * checkout refuses it, in words the member can act on.
 */
export function defineWritingTool<Args>(tool: Omit<ToolDefinition<Args>, 'parameters'>): ToolDefinition<Args> {
  return defineTool({
    ...tool,
    async run(args, ctx) {
      checkAborted(ctx.signal)
      assertWritableTree(ctx, tool.name)
      return tool.run(args, ctx)
    },
  })
}
