/**
 * electron/main/paths.ts in each of its layouts, laid out in a temporary folder: a checkout run from the sources, the
 * built out/ (the Electron main entry and a command-line chunk), an npm installation, and the packaged app (a real
 * app.asar made with @electron/asar, as electron-builder makes it), which scripts/check-package.mjs then checks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createPackageWithOptions } from '@electron/asar'
import { afterAll, describe, expect, it } from 'vitest'
import { nodeCommand, packagedFiles, pathsFor, runtimePaths } from '../../electron/main/platform/paths'
import { checkPackagedApp, packagedResources } from '../../scripts/check-package.mjs'

const base = mkdtempSync(join(tmpdir(), 'concord-paths-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function put(file: string, text = ''): string {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}

/** A checkout: package.json named concord, with an electron/ source tree and a built out/. */
function checkout(name: string): string {
  const root = join(base, name)
  put(join(root, 'package.json'), JSON.stringify({ name: 'concord', version: '0.1.0' }))
  // A package.json of another name on the way up is not Concord's.
  put(join(root, 'electron', 'package.json'), JSON.stringify({ name: 'not-concord' }))
  return root
}

describe('the layout a module runs in', () => {
  it('sources: a checkout run by tsx or vitest', () => {
    const root = checkout('sources')
    const p = pathsFor(put(join(root, 'electron', 'main', 'paths.ts')))
    expect(p).toEqual({
      layout: 'sources',
      root,
      unpacked: root,
      rendererDir: join(root, 'out', 'renderer'),
      rendererIndex: join(root, 'out', 'renderer', 'index.html'),
      preload: join(root, 'out', 'preload', 'index.cjs'),
      mainEntry: join(root, 'out', 'main', 'index.js'),
      cliBin: join(root, 'bin', 'concord.js'),
      cliEntry: join(root, 'out', 'cli', 'concord.js'),
      electronSqlite: join(root, 'native', 'electron', 'better_sqlite3.node'),
    })
  })

  it('built: the Electron main entry and a command-line chunk find the same root', () => {
    const root = checkout('built')
    const main = pathsFor(put(join(root, 'out', 'main', 'index.js')))
    const chunk = pathsFor(put(join(root, 'out', 'cli', 'chunks', 'serve-ABC123.js')))
    const entry = pathsFor(put(join(root, 'out', 'cli', 'concord.js')))
    for (const p of [main, chunk, entry]) {
      expect(p.layout).toBe('built')
      expect(p.root).toBe(root)
      expect(p.rendererIndex).toBe(join(root, 'out', 'renderer', 'index.html'))
      expect(p.cliBin).toBe(join(root, 'bin', 'concord.js'))
    }
  })

  it('built, installed by npm: the package in node_modules, below a project of its own', () => {
    const project = join(base, 'user-project')
    put(join(project, 'package.json'), JSON.stringify({ name: 'user-project' }))
    const root = join(project, 'node_modules', 'concord')
    put(join(root, 'package.json'), JSON.stringify({ name: 'concord', version: '0.1.0' }))
    const p = pathsFor(put(join(root, 'out', 'cli', 'chunks', 'serve-XYZ.js')))
    expect(p).toMatchObject({
      layout: 'built',
      root,
      rendererDir: join(root, 'out', 'renderer'),
      cliEntry: join(root, 'out', 'cli', 'concord.js'),
    })
  })

  it('packaged: inside app.asar, native files in app.asar.unpacked, no command line', () => {
    const resources = join(base, 'packaged', 'resources')
    const archive = join(resources, 'app.asar')
    // Seen from plain Node the archive is a file, from Electron a folder: the path alone decides.
    const p = pathsFor(join(archive, 'out', 'main', 'index.js'))
    expect(p).toMatchObject({
      layout: 'packaged',
      root: archive,
      unpacked: `${archive}.unpacked`,
      rendererIndex: join(archive, 'out', 'renderer', 'index.html'),
      preload: join(archive, 'out', 'preload', 'index.cjs'),
      electronSqlite: join(`${archive}.unpacked`, 'native', 'electron', 'better_sqlite3.node'),
      cliBin: null,
      cliEntry: null,
    })
  })

  it('no Concord package above the module is an error that names the file', () => {
    const stray = put(join(base, 'stray', 'index.js'))
    expect(() => pathsFor(stray)).toThrow(`Concord's package.json was not found above ${stray}`)
  })

  it('this run is the sources layout of this checkout, and helpers run this Node', () => {
    const p = runtimePaths()
    expect(p.layout).toBe('sources')
    expect(p.root).toBe(join(dirname(new URL(import.meta.url).pathname), '..', '..'))
    expect(nodeCommand()).toEqual({ command: process.execPath, env: {} })
  })
})

describe('npm run dist checks the package (scripts/check-package.mjs)', () => {
  /** An app the way electron-builder leaves it with --dir: resources/app.asar and app.asar.unpacked. */
  async function packagedApp(name: string, omit: string[] = []): Promise<string> {
    const app = join(base, name)
    const staging = join(app, 'staging')
    const files = [
      'package.json',
      'out/main/index.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'native/electron/better_sqlite3.node',
    ]
    for (const f of files.filter((f) => !omit.includes(f)))
      put(join(staging, f), f === 'package.json' ? '{"name":"concord"}' : 'x')
    const resources = join(app, 'dist', 'linux-unpacked', 'resources')
    mkdirSync(resources, { recursive: true })
    await createPackageWithOptions(staging, join(resources, 'app.asar'), { unpack: '**/*.node' })
    return join(app, 'dist')
  }

  it('names the files the packaged layout needs', () => {
    expect(packagedFiles('/r')).toEqual({
      archived: [
        'package.json',
        join('out', 'main', 'index.js'),
        join('out', 'preload', 'index.cjs'),
        join('out', 'renderer', 'index.html'),
      ],
      unpacked: [join('native', 'electron', 'better_sqlite3.node')],
    })
  })

  it('a complete package passes', async () => {
    const dist = await packagedApp('complete')
    const found = packagedResources(dist)
    expect(found).toEqual([join(dist, 'linux-unpacked', 'resources')])
    expect(checkPackagedApp(found[0]!, packagedFiles(found[0]!))).toEqual([])
  })

  it('a package without the preload or the unpacked SQLite says what is missing', async () => {
    const dist = await packagedApp('broken', ['out/preload/index.cjs', 'native/electron/better_sqlite3.node'])
    const [resources] = packagedResources(dist)
    const archive = join(resources!, 'app.asar')
    expect(checkPackagedApp(resources!, packagedFiles(resources!))).toEqual([
      `${join('out', 'preload', 'index.cjs')} is not in ${archive}`,
      `${join('native', 'electron', 'better_sqlite3.node')} is not in ${archive}.unpacked`,
    ])
  })

  it('no archive at all', () => {
    const resources = join(base, 'empty', 'resources')
    mkdirSync(resources, { recursive: true })
    expect(checkPackagedApp(resources, packagedFiles(resources))).toEqual([`${join(resources, 'app.asar')} is missing`])
  })
})
