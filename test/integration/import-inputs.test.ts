/**
 * import.workspace reads only what an export can be (issue 32): a named pipe hung it, /dev/zero grew it past 3 GB.
 * It now opens the path without waiting, checks on the opened descriptor that it is a regular file, and reads at
 * most IMPORT_MAX_BYTES; anything else is refused with a clear error and nothing is changed.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IMPORT_MAX_BYTES } from '../../electron/main/export/import'
import { MAX_ELEMENTS } from '../../electron/main/export/json'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

let t: TestCore
let target: string
beforeEach(() => {
  t = makeCore()
  target = join(dirname(t.repoDir), 'target')
  mkdirSync(target)
})
afterEach(async () => {
  await t.cleanup()
})

const attempt = (path: string) => t.core.invoke('import.workspace', { path, repoPath: target })

/** Nothing was registered and no workspace file was left behind. */
async function nothingChanged(): Promise<void> {
  expect(await t.core.invoke('workspaces.list', {})).toEqual([])
  expect(readdirSync(join(t.dataDir, 'workspaces'))).toEqual([])
}

describe('import.workspace reads regular files only, up to a limit', () => {
  it('refuses a named pipe with no writer at once, and one named concord-export.json in a folder', async () => {
    const fifo = join(dirname(t.repoDir), 'pipe.json')
    execFileSync('mkfifo', [fifo])
    const err = await rejectsWith(attempt(fifo), 'invalid_params')
    expect(err.message).toContain(`${fifo} is a named pipe, not a regular file`)
    const folder = join(dirname(t.repoDir), 'folder')
    mkdirSync(folder)
    execFileSync('mkfifo', [join(folder, 'concord-export.json')])
    const inFolder = await rejectsWith(attempt(folder), 'invalid_params')
    expect(inFolder.message).toContain('concord-export.json is a named pipe')
    await nothingChanged()
  })

  it('refuses a device such as /dev/zero before reading from it', async () => {
    const err = await rejectsWith(attempt('/dev/zero'), 'invalid_params')
    expect(err.message).toContain('/dev/zero is a device, not a regular file')
    await nothingChanged()
  })

  it('refuses a file over the limit, naming its size and the limit (a sparse file: no disk used)', async () => {
    const big = join(dirname(t.repoDir), 'huge.json')
    const fd = openSync(big, 'w')
    ftruncateSync(fd, IMPORT_MAX_BYTES + 1024 * 1024)
    closeSync(fd)
    const err = await rejectsWith(attempt(big), 'payload_too_large')
    expect(err.message).toContain(`${big} is 501.0 MB; an import reads at most 500.0 MB`)
    await nothingChanged()
  })
})

describe('import.workspace counts before it checks element by element', () => {
  /** A good export of an empty workspace with `fill` applied, written beside the repository. */
  async function exportWith(name: string, fill: (doc: Record<string, unknown>) => void): Promise<string> {
    const ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Shop' })
    const out = join(dirname(t.repoDir), `export-${name}`)
    const done = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json', outDir: out })
    const doc = JSON.parse(readFileSync(done.files[0]!, 'utf8')) as Record<string, unknown>
    fill(doc)
    const file = join(dirname(t.repoDir), `${name}.json`)
    writeFileSync(file, JSON.stringify(doc))
    return file
  }

  it('refuses 1,000,000 empty members (a 3 MB file) by their count, before checking one', async () => {
    const file = await exportWith('members', (d) => (d.members = Array.from({ length: 1_000_000 }, () => ({}))))
    const err = await rejectsWith(attempt(file), 'payload_too_large')
    expect(err.message).toContain(
      `has 1,000,000 members; an import takes at most ${MAX_ELEMENTS.members.toLocaleString('en-US')}`,
    )
    expect((await t.core.invoke('workspaces.list', {})).map((w) => w.name)).toEqual(['Shop'])
  })

  it('stops at the first problems of a long list of bad elements', async () => {
    const file = await exportWith('decisions', (d) => (d.decisions = Array.from({ length: 100_000 }, () => ({}))))
    const err = await rejectsWith(attempt(file), 'invalid_params')
    expect(err.message).toContain('decisions[0].id')
    expect(err.message).toContain('checking stopped at these first problems')
    expect(err.message).not.toContain('decisions[1]')
    expect((await t.core.invoke('workspaces.list', {})).map((w) => w.name)).toEqual(['Shop'])
  })
})
