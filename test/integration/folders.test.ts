import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_FOLDERS } from '../../electron/main/platform/system/folders'
import { startBridge, type Bridge } from '../../electron/main/transport/bridge'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'
import { callApi } from '../fixtures/http'

const TOKEN = 'folders-token'
let t: TestCore
let bridge: Bridge

afterEach(async () => {
  await bridge?.close()
  await t?.cleanup()
})

async function start(options: Parameters<typeof makeCore>[0] = {}) {
  t = makeCore(options)
  bridge = await startBridge({ core: t.core, port: 0, token: TOKEN })
}

/** Through the bridge, as the browser's folder chooser calls it. */
const api = (method: string, params: unknown) => callApi(`http://127.0.0.1:${bridge.port}`, TOKEN, method, params)

describe('choosing a repository folder', () => {
  it('lists the sub-folders only, sorted, hidden ones left out, repositories marked, symlinks to folders followed', async () => {
    await start()
    const root = join(t.repoDir, 'projects')
    for (const d of ['zeta', 'Alpha', 'app10', 'app9', '.cache', 'plain']) mkdirSync(join(root, d), { recursive: true })
    initRepo(join(root, 'zeta'))
    writeFileSync(join(root, 'notes.txt'), 'a file, not listed')
    symlinkSync(join(root, 'zeta'), join(root, 'linked'))
    symlinkSync(join(root, 'gone'), join(root, 'dangling'))
    symlinkSync(join(root, 'notes.txt'), join(root, 'file-link'))

    const { status, body } = await api('folders.browse', { path: root })
    expect(status).toBe(200)
    const listing = body.value
    expect(listing.path).toBe(root)
    expect(listing.parent).toBe(t.repoDir)
    expect(listing.isRepo).toBe(false)
    expect(listing.truncated).toBe(false)
    expect(listing.folders.map((f: { name: string }) => f.name)).toEqual([
      'Alpha',
      'app9',
      'app10',
      'linked',
      'plain',
      'zeta',
    ])
    expect(listing.folders.filter((f: { isRepo: boolean }) => f.isRepo).map((f: { name: string }) => f.name)).toEqual([
      'linked',
      'zeta',
    ])

    // A path through a symlink comes back resolved, and a repository says so.
    const inside = await api('folders.browse', { path: join(root, 'linked') })
    expect(inside.body.value).toMatchObject({ path: join(root, 'zeta'), isRepo: true, parent: root })
    // The filesystem root has no parent; no path means the home folder.
    expect((await api('folders.browse', { path: '/' })).body.value.parent).toBeNull()
    const home = (await api('folders.browse', {})).body.value
    expect(home.path).toBe(home.home)
  })

  it('refuses relative, missing, non-folder and malformed paths with stable codes', async () => {
    await start()
    writeFileSync(join(t.repoDir, 'file.txt'), 'x')
    const cases: [unknown, number, string][] = [
      [{ path: 'relative/dir' }, 400, 'invalid_params'],
      [{ path: '../../etc' }, 400, 'invalid_params'],
      [{ path: join(t.repoDir, 'missing') }, 404, 'not_found'],
      [{ path: join(t.repoDir, 'file.txt') }, 400, 'invalid_params'],
      [{ path: `${t.repoDir}\0/x` }, 400, 'invalid_params'],
      [{ path: t.repoDir, showFiles: true }, 400, 'invalid_params'],
      [{ path: 42 }, 400, 'invalid_params'],
    ]
    for (const [params, status, code] of cases) {
      const r = await api('folders.browse', params)
      expect([r.status, r.body.error?.code], JSON.stringify(params)).toEqual([status, code])
      expect(r.body.error?.message).toBeTruthy()
    }
  })

  it('says when a folder has more sub-folders than it lists', async () => {
    await start()
    const many = join(t.repoDir, 'many')
    for (let i = 0; i < MAX_FOLDERS + 5; i++) mkdirSync(join(many, `d${i}`), { recursive: true })
    const { body } = await api('folders.browse', { path: many })
    expect(body.value.folders).toHaveLength(MAX_FOLDERS)
    expect(body.value.truncated).toBe(true)
  })

  it('uses the native dialog only where the host has one', async () => {
    await start()
    // `concord serve` has none: a clear, stable refusal the browser answers with its own chooser.
    const refused = await api('folders.pick', {})
    expect(refused.status).toBe(501)
    expect(refused.body.error).toMatchObject({ code: 'unsupported' })
    expect(refused.body.error!.message).toMatch(/folders\.browse/)
    await bridge.close()
    await t.cleanup()

    const answers = ['/home/me/app', null]
    const titles: (string | undefined)[] = []
    await start({ pickFolder: async (title) => (titles.push(title), answers.shift()!) })
    expect((await api('folders.pick', { title: 'Pick it' })).body.value).toEqual({ path: '/home/me/app' })
    expect((await api('folders.pick', {})).body.value).toEqual({ path: null })
    expect(titles).toEqual(['Pick it', undefined])
  })
})
