import { parseArgs } from 'node:util'
import { UsageError } from './errors'

/** What one command accepts: its options by long name (besides --help) and how many positionals. */
export interface CommandSpec {
  options: Record<string, 'string' | 'boolean'>
  /** The most positional arguments it takes (none unless said). */
  positionals?: number
}

export interface ParsedArgs {
  command: string
  values: Record<string, string | boolean | undefined>
  positionals: string[]
  /** The options this command declares, so reading an undeclared one is caught as the bug it is. */
  declared: readonly string[]
}

const quoted = (message: string) => /'([^']*)'/.exec(message)?.[1] ?? ''

/** node:util's parse errors, said in the command's words, with where to look. */
function usageErrorOf(command: string, err: { code?: string; message: string }): UsageError {
  const hint = `; see concord ${command} --help`
  // node:util names an option with a short form as '-h, --help'; the long form is the one to show.
  const name = quoted(err.message)
    .replace(/ <value>$/, '')
    .split(', ')
    .pop()
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${name} for concord ${command}${hint}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument '${name}' for concord ${command}${hint}`)
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(err.message)) return new UsageError(`${name} takes no value${hint}`)
      if (/ambiguous/.test(err.message))
        return new UsageError(`${name} needs a value (to give one that starts with a dash, write ${name}=VALUE)${hint}`)
      return new UsageError(`${name} needs a value${hint}`)
    default:
      return new UsageError(`${err.message}${hint}`)
  }
}

/** Parses a command's arguments strictly: unknown options, missing values, repeats and stray arguments are usage errors. */
export function parseCommand(command: string, argv: string[], spec: CommandSpec): ParsedArgs {
  const options = Object.fromEntries(Object.entries(spec.options).map(([name, type]) => [name, { type }]))
  const max = spec.positionals ?? 0
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: max > 0,
      tokens: true,
    })
  } catch (err) {
    throw usageErrorOf(command, err as { code?: string; message: string })
  }
  const seen = new Set<string>()
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue
    // The last of two values would win silently: say so instead.
    if (seen.has(token.name))
      throw new UsageError(`--${token.name} is given more than once; see concord ${command} --help`)
    seen.add(token.name)
  }
  if (parsed.positionals.length > max) {
    throw new UsageError(
      `unexpected argument '${parsed.positionals[max]}' for concord ${command}; see concord ${command} --help`,
    )
  }
  return { command, values: parsed.values, positionals: parsed.positionals, declared: Object.keys(spec.options) }
}

/** A string option's value, or undefined when it was not given. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  if (!args.declared.includes(name))
    throw new Error(`--${name} is not declared as an option of concord ${args.command}`)
  const v = args.values[name]
  if (typeof v === 'boolean')
    throw new Error(`--${name} is a switch of concord ${args.command}, not an option with a value`)
  return v
}

/** A switch's value: true when it was given. */
export function switchFlag(args: ParsedArgs, name: string): boolean {
  if (!args.declared.includes(name))
    throw new Error(`--${name} is not declared as an option of concord ${args.command}`)
  const v = args.values[name]
  if (typeof v === 'string')
    throw new Error(`--${name} is an option with a value of concord ${args.command}, not a switch`)
  return v === true
}
