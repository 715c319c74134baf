#!/usr/bin/env node
// Runs the built command line, out/cli/concord.js. In a checkout (the build script is there) it first
// rebuilds it when a source is newer, which takes under a second, so `npx concord` never runs stale code.
import { existsSync } from 'node:fs'

const buildScript = new URL('../scripts/build-cli.mjs', import.meta.url)
const cli = new URL('../out/cli/concord.js', import.meta.url)
try {
  if (existsSync(buildScript)) await (await import(buildScript.href)).ensureCliBuilt()
  else if (!existsSync(cli)) throw new Error(`${cli.pathname} is missing from this installation`)
} catch (err) {
  console.error(`concord: internal: ${err instanceof Error ? err.message : err}`)
  process.exit(1)
}
await import(cli.href)
