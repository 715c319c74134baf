#!/usr/bin/env node
/**
 * `npm start`: the desktop app (electron-vite dev) where it can run. It fetches the Electron binary
 * when it was not downloaded (unless ELECTRON_SKIP_BINARY_DOWNLOAD is set) and SQLite for Electron
 * when missing. Where one of them cannot be had, or there is no display, it says why in one line and
 * starts the browser UI instead: `concord serve` with the token kept in the data folder, printing the URL to open.
 *
 *   npm start [-- ARGS]     ARGS go to the app (--data-dir=DIR) or to concord serve (--port, --data-dir)
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureElectronSqlite } from './electron-sqlite.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const electronPackage = join(root, 'node_modules', 'electron')

/** The Electron executable as electron/index.js finds it, without its download on first use. */
function electronBinary() {
  const pathFile = join(electronPackage, 'path.txt')
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : null
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH
  const binary = override ? join(override, name ?? 'electron') : name && join(electronPackage, 'dist', name)
  return binary && existsSync(binary) ? binary : null
}

/** Why the desktop app cannot run here, or null when it can. */
function whyNoDesktop() {
  if (!existsSync(electronPackage)) return 'the electron package is not installed'
  if (!electronBinary()) {
    if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD || process.env.ELECTRON_OVERRIDE_DIST_PATH) {
      return 'the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD)'
    }
    try {
      execFileSync(process.execPath, [join(electronPackage, 'install.js')], { stdio: 'pipe' })
    } catch {
      return 'the Electron binary could not be downloaded (offline?)'
    }
    if (!electronBinary()) return 'the Electron binary could not be downloaded'
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)'
  try {
    ensureElectronSqlite({ log: (line) => console.log(`npm start: ${line}`) })
  } catch (err) {
    return err.message
  }
  return null
}

function newestMtime(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs)
}

function uiIsStale() {
  const index = join(root, 'out', 'renderer', 'index.html')
  return (
    !existsSync(index) ||
    statSync(index).mtimeMs < Math.max(newestMtime(join(root, 'renderer')), newestMtime(join(root, 'shared')))
  )
}

/** Runs a child with this terminal and passes Ctrl-C and kill on to it; exits with its code. */
function runAttached(file, childArgs) {
  const child = spawn(file, childArgs, { cwd: root, stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}

const why = whyNoDesktop()
if (why === null) {
  runAttached(process.execPath, [
    join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
    'dev',
    ...(args.length ? ['--', ...args] : []),
  ])
} else {
  const stale = uiIsStale()
  console.log(
    `npm start: no desktop app here: ${why}. Starting the browser UI instead (concord serve)${stale ? ', after building it' : ''}.`,
  )
  if (stale) {
    try {
      execFileSync(
        process.execPath,
        [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
        { cwd: root, stdio: 'pipe' },
      )
    } catch (err) {
      process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? ''}`)
      console.error('concord: internal: building the UI failed (output above)')
      process.exit(1)
    }
  }
  runAttached(process.execPath, [join(root, 'bin', 'concord.js'), 'serve', ...args])
}
