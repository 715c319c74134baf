#!/usr/bin/env node
import { parseArgs } from './args'
import { exportCommand, exportUsage, withUsage } from './export'
import { importCommand, importUsage } from './import'
import { serve } from './serve'

const usage = `usage: concord <command> [options]

  serve   [--port N] [--data-dir DIR] [--token TOKEN]   run the core and UI on 127.0.0.1
${exportUsage}
${importUsage}
`

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  switch (args.command) {
    case 'serve':
      await serve(args)
      return -1
    case 'export':
      return withUsage('export', () => exportCommand(args))
    case 'import':
      return withUsage('import', () => importCommand(args))
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
