#!/usr/bin/env node
import { parseCommand, type CommandSpec, type ParsedArgs } from './args'
import { describeFailure, failureLine, UsageError } from './errors'
import { concordVersion } from './root'
import { commandHelp, exitStatus, exportUsage, importUsage, mcpUsage, serveUsage } from './usage'

interface Command extends CommandSpec {
  /** Its exit code, or 'running' for a server that ends on a signal or when its input closes. */
  run(args: ParsedArgs): Promise<number | 'running'>
}

const dataDir = { 'data-dir': 'string' } as const

// Commands load the core only when they run.
const commands: Record<string, Command> = {
  serve: {
    options: { port: 'string', token: 'string', ...dataDir },
    run: async (args) => {
      await (await import('./serve')).serve(args)
      return 'running'
    },
  },
  export: {
    options: {
      repo: 'string',
      format: 'string',
      flavour: 'string',
      out: 'string',
      'dry-run': 'boolean',
      'overwrite-edited': 'boolean',
      ...dataDir,
    },
    run: async (args) => (await import('./export')).exportCommand(args),
  },
  import: {
    options: { file: 'string', repo: 'string', name: 'string', ...dataDir },
    positionals: 1,
    run: async (args) => (await import('./import')).importCommand(args),
  },
  mcp: {
    options: { member: 'string', ...dataDir },
    run: async (args) => {
      await (await import('./mcp')).mcpCommand(args)
      return 'running'
    },
  },
}

const usage = `usage: concord <command> [options]

${serveUsage}
${exportUsage}
${importUsage}
${mcpUsage}

  concord <command> --help   that command's options
  concord --version          the version

${exitStatus}
`

async function main(argv: string[]): Promise<number | 'running'> {
  const [first, ...rest] = argv
  if (first === undefined)
    throw new UsageError(`no command given; the commands are ${Object.keys(commands).join(', ')} (see concord --help)`)
  if (first === '--version' || first === '-v') {
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}' after ${first}`)
    console.log(`concord ${concordVersion()}`)
    return 0
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const [topic, extra] = rest
    if (extra !== undefined || (topic !== undefined && !Object.hasOwn(commands, topic))) {
      throw new UsageError(
        `unexpected argument '${extra ?? topic}' after ${first}; the commands are ${Object.keys(commands).join(', ')}`,
      )
    }
    process.stdout.write(topic === undefined ? usage : (commandHelp[topic] ?? usage))
    return 0
  }
  const command = Object.hasOwn(commands, first) ? commands[first] : undefined
  if (!command) {
    throw new UsageError(
      first.startsWith('-')
        ? `unknown option ${first}; see concord --help`
        : `unknown command '${first}'; the commands are ${Object.keys(commands).join(', ')}`,
    )
  }
  const args = parseCommand(first, rest, command)
  if (args.values.help) {
    process.stdout.write(commandHelp[first] ?? usage)
    return 0
  }
  return command.run(args)
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 'running') process.exit(code)
  },
  (err: unknown) => {
    const failure = describeFailure(err)
    console.error(failureLine(failure.code, failure.message))
    process.exit(failure.exitCode)
  },
)
