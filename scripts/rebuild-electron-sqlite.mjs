#!/usr/bin/env node
// Builds better-sqlite3 for Electron's ABI into native/electron/better_sqlite3.node, leaving the Node
// build in node_modules untouched so `npm test` never depends on this step. Skips (exit 0) when the
// Electron binary or headers cannot be had (as on an offline machine).
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const root = join(import.meta.dirname, '..')
let electronVersion
try {
  electronVersion = require('electron/package.json').version
  require('electron') // throws when the binary was not downloaded
} catch {
  console.log('rebuild:electron skipped: the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD).')
  process.exit(0)
}
const src = join(root, 'node_modules', 'better-sqlite3')
const work = mkdtempSync(join(tmpdir(), 'bsq-electron-'))
try {
  cpSync(src, work, { recursive: true })
  execFileSync('npx', ['--yes', 'node-gyp', 'rebuild', '--release', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers'], { cwd: work, stdio: 'inherit' })
  mkdirSync(join(root, 'native', 'electron'), { recursive: true })
  cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), join(root, 'native', 'electron', 'better_sqlite3.node'))
  console.log('rebuild:electron: native/electron/better_sqlite3.node built for Electron', electronVersion)
} catch (err) {
  console.log('rebuild:electron skipped:', err instanceof Error ? err.message : err)
} finally {
  if (existsSync(work)) rmSync(work, { recursive: true, force: true })
}
