#!/usr/bin/env node
/**
 * `npm run dist [-- OPTIONS]`: desktop packages with electron-builder (electron-builder.yml). Builds
 * main, preload and the renderer, makes sure SQLite for Electron is there for the target
 * (scripts/electron-sqlite.mjs), then packages: AppImage and deb on Linux, dmg and zip on macOS, an
 * NSIS installer on Windows, into dist/.
 *
 * One platform and one arch a run, since the SQLite binding is made for one: --linux, --mac or --win
 * and --x64 or --arm64 (default: this machine's). Other options (--dir, -c.key=value) go to
 * electron-builder. Packaging for another platform needs that platform's prebuilt SQLite (there is no
 * cross-compiling) and, for mac, a Mac to sign on. Afterwards it checks that the package holds every file
 * electron/main/paths.ts names for the packaged app (scripts/check-package.mjs).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkPackagedApp, packagedResources } from './check-package.mjs'
import { ensureElectronSqlite } from './electron-sqlite.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const platforms = {
  '--linux': 'linux',
  '-l': 'linux',
  '--mac': 'darwin',
  '-m': 'darwin',
  '--win': 'win32',
  '-w': 'win32',
}
const arches = ['x64', 'arm64', 'ia32', 'armv7l']

function fail(message) {
  console.error(`dist: ${message}`)
  process.exit(1)
}

const passOn = []
let platform = null
let arch = null
for (const arg of process.argv.slice(2)) {
  if (arg in platforms) {
    if (platform && platform !== platforms[arg]) fail('one platform a run (the SQLite binding is made for one)')
    platform = platforms[arg]
  } else if (arches.includes(arg.replace(/^--/, '')) && arg.startsWith('--')) {
    if (arch && arch !== arg.slice(2)) fail('one arch a run (the SQLite binding is made for one)')
    arch = arg.slice(2)
  } else if (arg === '--universal')
    fail('--universal needs SQLite for both arches in one binary; package --x64 and --arm64 separately')
  else passOn.push(arg)
}
platform ??= process.platform
arch ??= process.arch

console.log('dist: building main, preload and the renderer')
execFileSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
  cwd: root,
  stdio: 'inherit',
})

try {
  const sqlite = ensureElectronSqlite({ platform, arch, log: (line) => console.log(`dist: ${line}`) })
  console.log(`dist: SQLite for Electron: ${sqlite.path}`)
} catch (err) {
  fail(`${err.message}; cannot package without it`)
}

const flag = { linux: '--linux', darwin: '--mac', win32: '--win' }[platform]
if (!flag) fail(`electron-builder cannot package for ${platform}`)
const builderArgs = [flag, `--${arch}`, '--publish', 'never', ...passOn]
// The Electron binary npm start downloaded serves when packaging for this machine; else electron-builder fetches the target's.
const localDist = join(root, 'node_modules', 'electron', 'dist')
if (platform === process.platform && arch === process.arch && existsSync(localDist))
  builderArgs.push(`-c.electronDist=${localDist}`)
const cli = join(dirname(createRequire(import.meta.url).resolve('electron-builder/package.json')), 'cli.js')
console.log(`dist: electron-builder ${builderArgs.join(' ')}`)
const result = spawnSync(process.execPath, [cli, ...builderArgs], { cwd: root, stdio: 'inherit' })
if (result.status !== 0) process.exit(result.status ?? 1)

// Every file electron/main/paths.ts names for the packaged app must be in what electron-builder made.
const { tsImport } = await import('tsx/esm/api')
const { packagedFiles } = await tsImport('../electron/main/paths.ts', import.meta.url)
const resources = packagedResources(join(root, 'dist'))
if (resources.length === 0) fail('electron-builder left no resources/app.asar under dist/')
for (const dir of resources) {
  const missing = checkPackagedApp(dir, packagedFiles(dir))
  if (missing.length) fail(`the package lacks what the app reads at run time:\n  ${missing.join('\n  ')}`)
  console.log(`dist: ${dir}: every file the app reads at run time is there`)
}
