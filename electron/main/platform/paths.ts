/**
 * Where Concord finds every file it starts or reads at run time, in each of its three layouts:
 *
 * - `sources`: a checkout run by tsx or vitest (this module is electron/main/paths.ts);
 * - `built`: the checkout's or the npm package's out/ (this module is bundled into out/main/index.js, or into
 *   out/cli/concord.js or one of its chunks), run by Electron or by `concord` under plain Node;
 * - `packaged`: the desktop app electron-builder made (this module is in resources/app.asar/out/main/index.js).
 *   Electron reads inside the archive as a folder; a file another program opens (a native module, a script run
 *   by a child process) must be in app.asar.unpacked next to it (electron-builder.yml asarUnpack).
 *
 * Nothing else computes a path from its own location: `npm run dist` checks that every file named here is in the
 * package (scripts/check-package.mjs), and test/unit/paths.test.ts lays out each layout in a temporary folder.
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

export type Layout = 'sources' | 'built' | 'packaged'

export interface RuntimePaths {
  layout: Layout
  /** The folder of Concord's package.json; in the packaged app the app.asar archive, which Electron reads as one. */
  root: string
  /** Where the files other programs open are: `root`, or app.asar.unpacked in the packaged app. */
  unpacked: string
  /** The built renderer: the window's page and what `concord serve` serves. */
  rendererDir: string
  rendererIndex: string
  /** The window's preload script. */
  preload: string
  /** The Electron main entry (package.json "main"). */
  mainEntry: string
  /** The command line's launcher (package.json "bin") and the built command line it runs; null in the desktop app, which ships no command line. */
  cliBin: string | null
  cliEntry: string | null
  /** SQLite built for Electron's ABI (scripts/electron-sqlite.mjs), loaded by the desktop app; must be outside the archive. */
  electronSqlite: string
}

const ARCHIVE = 'app.asar'

function isConcordPackage(dir: string): boolean {
  const file = join(dir, 'package.json')
  if (!existsSync(file)) return false
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'concord'
  } catch {
    return false
  }
}

/** The layout a module at `moduleFile` runs in and the paths it gives, found upwards from that file. */
export function pathsFor(moduleFile: string): RuntimePaths {
  let dir = dirname(moduleFile)
  for (;;) {
    // Inside the archive (or looked at from outside Electron, where app.asar is a file): the archive is the root.
    if (basename(dir) === ARCHIVE) return layout('packaged', dir, `${dir}.unpacked`)
    if (isConcordPackage(dir)) {
      const inOut = relative(dir, moduleFile).split(sep)[0] === 'out'
      return layout(inOut ? 'built' : 'sources', dir, dir)
    }
    const up = dirname(dir)
    if (up === dir) throw new Error(`Concord's package.json was not found above ${moduleFile}`)
    dir = up
  }
}

function layout(kind: Layout, root: string, unpacked: string): RuntimePaths {
  const rendererDir = join(root, 'out', 'renderer')
  const cli = kind !== 'packaged'
  return {
    layout: kind,
    root,
    unpacked,
    rendererDir,
    rendererIndex: join(rendererDir, 'index.html'),
    preload: join(root, 'out', 'preload', 'index.cjs'),
    mainEntry: join(root, 'out', 'main', 'index.js'),
    cliBin: cli ? join(root, 'bin', 'concord.js') : null,
    cliEntry: cli ? join(root, 'out', 'cli', 'concord.js') : null,
    electronSqlite: join(unpacked, 'native', 'electron', 'better_sqlite3.node'),
  }
}

let current: RuntimePaths | undefined

/** The paths of the running Concord. */
export function runtimePaths(): RuntimePaths {
  current ??= pathsFor(fileURLToPath(import.meta.url))
  return current
}

/**
 * How to run Node for a helper process (the MCP proxy an agent starts, the command line): this very program, and
 * inside Electron with ELECTRON_RUN_AS_NODE so that it is plain Node.
 */
export function nodeCommand(): { command: string; env: Record<string, string> } {
  return { command: process.execPath, env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} }
}

/** What must be in a packaged app for it to run: `archived` files are read by Electron inside app.asar, `unpacked` ones outside it. */
export function packagedFiles(resourcesDir: string): { archived: string[]; unpacked: string[] } {
  const p = pathsFor(join(resourcesDir, ARCHIVE, 'out', 'main', 'index.js'))
  const inArchive = (file: string) => relative(p.root, file)
  return {
    archived: ['package.json', inArchive(p.mainEntry), inArchive(p.preload), inArchive(p.rendererIndex)],
    unpacked: [relative(p.unpacked, p.electronSqlite)],
  }
}
