/**
 * A workspace opened on Concord's own data folder showed every key (issue 32): a member's command printed
 * secrets.json with the keys of all workspaces. workspaces.open and import.workspace refuse a repository that is
 * the data folder, lies inside it or holds it, compared as real paths (a link to it is refused too).
 */
import { mkdirSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

let t: TestCore
beforeEach(() => {
  t = makeCore()
})
afterEach(async () => {
  await t.cleanup()
})

describe('a repository on the data folder', () => {
  it('workspaces.open refuses the data folder, a folder inside it, one holding it and a link to it', async () => {
    const inside = join(t.dataDir, 'workspaces', 'repo')
    mkdirSync(inside)
    const link = join(dirname(t.dataDir), 'innocent')
    symlinkSync(t.dataDir, link)
    for (const repoPath of [t.dataDir, inside, dirname(t.dataDir), link, join(link, 'workspaces')]) {
      const err = await rejectsWith(t.core.invoke('workspaces.open', { repoPath }), 'data_folder_repo')
      expect(err.message).toMatch(/data folder/)
      expect(err.message).toContain(repoPath === dirname(t.dataDir) ? 'holds' : 'is inside')
    }
    expect(await t.core.invoke('workspaces.list', {})).toEqual([])
    // A neighbour whose name starts like the data folder's is not inside it.
    const neighbour = `${t.dataDir}-neighbour`
    mkdirSync(neighbour)
    const ws = await t.core.invoke('workspaces.open', { repoPath: neighbour })
    expect(ws.repoPath).toBe(neighbour)
  })

  it('import.workspace refuses to restore into the data folder', async () => {
    const ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Shop' })
    const out = join(dirname(t.repoDir), 'export')
    const done = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json', outDir: out })
    const err = await rejectsWith(
      t.core.invoke('import.workspace', { path: done.files[0]!, repoPath: t.dataDir }),
      'data_folder_repo',
    )
    expect(err.message).toMatch(/data folder/)
    expect((await t.core.invoke('workspaces.list', {})).map((w) => w.id)).toEqual([ws.id])
  })
})
