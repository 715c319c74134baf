/** Minimal `--flag value` / `--flag=value` / `--switch` parsing for the concord command line. */
export interface ParsedArgs {
  command: string | undefined
  flags: Map<string, string | true>
  rest: string[]
}

export function parseArgs(argv: string[]): ParsedArgs {
  const flags = new Map<string, string | true>()
  const rest: string[] = []
  let command: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1))
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags.set(a.slice(2), argv[++i])
      else flags.set(a.slice(2), true)
    } else if (command === undefined) command = a
    else rest.push(a)
  }
  return { command, flags, rest }
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name)
  if (v === true) throw new Error(`--${name} needs a value`)
  return v
}
