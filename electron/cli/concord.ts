#!/usr/bin/env node
import { parseArgs } from './args'
import { exportUsage, importUsage, mcpUsage } from './usage'

const usage = `usage: concord <command> [options]

  serve   [--port N] [--data-dir DIR] [--token TOKEN]   run the core and UI on 127.0.0.1
${exportUsage}
${importUsage}
${mcpUsage}
`

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  switch (args.command) {
    // Commands load the core only when they run.
    case 'serve':
      await (await import('./serve')).serve(args)
      return -1
    case 'export': {
      const { exportCommand, withUsage } = await import('./export')
      return withUsage('export', () => exportCommand(args))
    }
    case 'import': {
      const [{ importCommand }, { withUsage }] = await Promise.all([import('./import'), import('./export')])
      return withUsage('import', () => importCommand(args))
    }
    case 'mcp':
      await (await import('./mcp')).mcpCommand(args)
      return -1
    case undefined:
    case 'help':
    case '--help':
      console.log(usage)
      return 0
    default:
      console.error(`concord: unknown command '${args.command}'\n\n${usage}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err: unknown) => {
    const e = err as { code?: string; message?: string }
    console.error(`concord: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`)
    process.exit(1)
  },
)
