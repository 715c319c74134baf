#!/usr/bin/env node
/**
 * SQLite (better-sqlite3) for Electron's ABI in native/electron/better_sqlite3.node, which the desktop
 * app loads through better-sqlite3's nativeBinding option. The Node build in node_modules, which the
 * tests and `concord serve` load, is never touched: the work happens on a copy of the package.
 *
 * First better-sqlite3's own prebuilt binary for Electron (prebuild-install --runtime electron), else
 * a node-gyp build against Electron's headers (host platform only). A stamp beside the binding says
 * what it was made for; it is made again when Electron, better-sqlite3 or the target changes.
 *
 *   node scripts/electron-sqlite.mjs [--force] [--platform P] [--arch A] [--out DIR]
 *
 * Exits 1 with the reason when neither way works (offline, say).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))
export const defaultOutDir = join(root, 'native', 'electron')

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'))
}

/** What a binding is made for; a binding whose stamp differs is made again. */
export function targetOf({ platform = process.platform, arch = process.arch } = {}) {
  let electron
  try {
    electron = readJson(require.resolve('electron/package.json')).version
  } catch {
    throw new Error(
      'the electron package is not installed (npm install installs it; ELECTRON_SKIP_BINARY_DOWNLOAD=1 skips only its binary)',
    )
  }
  const betterSqlite3 = readJson(require.resolve('better-sqlite3/package.json')).version
  return { electron, betterSqlite3, platform, arch }
}

const sameTarget = (a, b) => ['electron', 'betterSqlite3', 'platform', 'arch'].every((k) => a?.[k] === b[k])

/** The reason in a failed command's output: node-gyp's error message, else the last line. */
function reasonOf(err) {
  const lines = (`${err.stderr ?? ''}${err.stdout ?? ''}`.trim() || err.message).split('\n').filter((l) => l.trim())
  const start = lines.findIndex((l) => /ERR! stack \w*Error:/.test(l))
  if (start < 0) return lines.pop()
  const message = []
  for (const l of lines.slice(start)) {
    if (!/ERR! stack /.test(l) || /^\S+ ERR! stack\s+at /.test(l)) break
    message.push(l.replace(/^.*ERR! stack /, ''))
  }
  return message.join(' ')
}

function run(file, args, cwd, timeout, env = process.env) {
  execFileSync(file, args, { cwd, stdio: 'pipe', timeout, env })
}

/**
 * The environment for node-gyp without a nodedir (Debian's npm sets nodedir=/usr, and npm passes it on
 * as npm_config_nodedir): with one, node-gyp builds against Node's headers, whatever --target says.
 */
function envForElectronHeaders() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => k.toLowerCase() !== 'npm_config_nodedir'))
}

/** npm's own node-gyp (npm sets npm_config_node_gyp for scripts), else the one beside this Node. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ]
  return candidates.find((c) => c && existsSync(c))
}

/**
 * Makes sure the binding for the target is in outDir; returns its path and how it was had
 * ('present', 'prebuilt' or 'compiled'). Throws with what was tried when it cannot be had.
 */
export function ensureElectronSqlite({ platform, arch, outDir = defaultOutDir, force = false, log = () => {} } = {}) {
  const target = targetOf({ platform, arch })
  const binding = join(outDir, 'better_sqlite3.node')
  const stampFile = join(outDir, 'better_sqlite3.json')
  if (!force && existsSync(binding) && existsSync(stampFile) && sameTarget(readJson(stampFile), target))
    return { path: binding, how: 'present' }

  const label = `better-sqlite3 ${target.betterSqlite3} for Electron ${target.electron} (${target.platform}-${target.arch})`
  const work = mkdtempSync(join(tmpdir(), 'concord-electron-sqlite-'))
  const tried = []
  try {
    const pkg = dirname(require.resolve('better-sqlite3/package.json'))
    // The sources without the Node build, so nothing found in the copy can be the Node binary.
    cpSync(pkg, work, {
      recursive: true,
      filter: (src) => !['build', 'node_modules', 'prebuilds'].includes(basename(src)) || dirname(src) !== pkg,
    })
    const built = join(work, 'build', 'Release', 'better_sqlite3.node')
    let how = 'prebuilt'
    try {
      log(`fetching the prebuilt ${label}`)
      const prebuildInstall = require.resolve('prebuild-install/bin.js')
      run(
        process.execPath,
        [
          prebuildInstall,
          '--runtime',
          'electron',
          '--target',
          target.electron,
          '--platform',
          target.platform,
          '--arch',
          target.arch,
        ],
        work,
        120_000,
      )
    } catch (err) {
      tried.push(`prebuilt binary: ${reasonOf(err)}`)
      how = 'compiled'
    }
    if (how === 'compiled') {
      const gyp = nodeGyp()
      if (target.platform !== process.platform)
        tried.push(`node-gyp: cannot compile for ${target.platform} on ${process.platform}`)
      else if (!gyp) tried.push('node-gyp: not found (it comes with npm)')
      else {
        try {
          log(`compiling ${label} with node-gyp (a few minutes)`)
          run(
            process.execPath,
            [
              gyp,
              'rebuild',
              '--release',
              `--target=${target.electron}`,
              `--arch=${target.arch}`,
              '--dist-url=https://electronjs.org/headers',
            ],
            work,
            20 * 60_000,
            envForElectronHeaders(),
          )
        } catch (err) {
          tried.push(`node-gyp: ${reasonOf(err)}`)
        }
      }
    }
    if (!existsSync(built)) throw new Error(`SQLite for Electron could not be had: ${tried.join('; ')}`)
    mkdirSync(outDir, { recursive: true })
    // Renamed into place, so an app starting meanwhile never loads half a file.
    cpSync(built, `${binding}.tmp`)
    renameSync(`${binding}.tmp`, binding)
    writeFileSync(stampFile, `${JSON.stringify({ ...target, how }, null, 2)}\n`)
    return { path: binding, how }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      force: { type: 'boolean' },
      platform: { type: 'string' },
      arch: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  })
  try {
    const r = ensureElectronSqlite({
      ...values,
      outDir: values.out,
      log: (line) => console.log(`electron-sqlite: ${line}`),
    })
    console.log(`electron-sqlite: ${r.path} (${r.how === 'present' ? 'already there' : r.how})`)
  } catch (err) {
    console.error(`electron-sqlite: ${err.message}`)
    process.exit(1)
  }
}
