/**
 * Export never writes through a symbolic link committed in the repository — the ADR folder, any folder on the way
 * to it, an existing export file — and never puts the content of a file a convention file points at into an
 * answer or an error (issue 19).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

const SECRET = 'TOPSECRET-first-line-of-the-target'

let t: TestCore
let ws: Workspace
let outside: string
let secretFile: string

beforeEach(async () => {
  t = makeCore()
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Shop' })
  await t.core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Storage',
    statement: 'Store orders in SQLite.',
  })
  outside = join(t.repoDir, '..', 'outside')
  mkdirSync(outside)
  secretFile = join(outside, 'secret.txt')
  writeFileSync(secretFile, `${SECRET}\nsecond line\n`)
})
afterEach(() => t.cleanup())

type ExportParams = {
  format: 'madr' | 'markdown' | 'json'
  outDir?: string
  flavour?: 'madr' | 'adr-tools' | 'log4brains'
}
const exportAs = (p: ExportParams) => t.core.invoke('export.decisionLog', { workspaceId: ws.id, ...p })

/** The call fails with invalid_params, says "symbolic link", and quotes nothing of the secret. */
async function refusedAsLink(p: ExportParams): Promise<string> {
  const err = await rejectsWith(exportAs(p), 'invalid_params')
  expect(err.message).toContain('symbolic link')
  expect(JSON.stringify(err)).not.toContain(SECRET)
  return err.message
}

const outsideUntouched = () => {
  expect(readdirSync(outside).sort()).toEqual(['secret.txt'])
  expect(readFileSync(secretFile, 'utf8')).toBe(`${SECRET}\nsecond line\n`)
}

describe('export and symbolic links in the repository', () => {
  it('refuses a default ADR folder that is a link to a folder outside, and writes nothing there', async () => {
    mkdirSync(join(t.repoDir, 'docs'))
    symlinkSync(outside, join(t.repoDir, 'docs', 'decisions'))
    expect(await refusedAsLink({ format: 'madr' })).toContain('docs/decisions')
    outsideUntouched()
  })

  it('refuses a link on the way to the ADR folder (docs → outside), for every flavour', async () => {
    symlinkSync(outside, join(t.repoDir, 'docs'))
    symlinkSync(outside, join(t.repoDir, 'doc'))
    for (const flavour of ['madr', 'log4brains', 'adr-tools'] as const) await refusedAsLink({ format: 'madr', flavour })
    outsideUntouched()
  })

  it('refuses a relative outDir through a link in the repository, for every format', async () => {
    symlinkSync(outside, join(t.repoDir, 'exports'))
    for (const format of ['madr', 'markdown', 'json'] as const) await refusedAsLink({ format, outDir: 'exports/log' })
    await refusedAsLink({ format: 'markdown', outDir: join(t.repoDir, 'exports') })
    outsideUntouched()
  })

  it('refuses to replace an export file that is a link, and leaves its target alone', async () => {
    const first = await exportAs({ format: 'madr' })
    const adr = first.files[0]
    const target = join(t.repoDir, '..', 'adr.md')
    writeFileSync(target, readFileSync(adr!, 'utf8'))
    const before = readFileSync(target, 'utf8')
    rmSync(adr!)
    symlinkSync(target, adr!)
    await t.core.invoke('decisions.update', {
      decisionId: (await t.core.invoke('decisions.list', { workspaceId: ws.id }))[0]!.id,
      expectedVersion: 1,
      statement: 'Store orders in Postgres.',
    })
    await refusedAsLink({ format: 'madr' })
    expect(readFileSync(target, 'utf8')).toBe(before)

    // DECISIONS.md and the JSON export likewise.
    symlinkSync(secretFile, join(t.repoDir, 'DECISIONS.md'))
    await refusedAsLink({ format: 'markdown' })
    symlinkSync(secretFile, join(t.repoDir, 'concord-export.json'))
    await refusedAsLink({ format: 'json' })
    outsideUntouched()
  })

  it('never reads a convention file that is a link, and never quotes its target', async () => {
    // `.adr-dir` → a file outside: its first line would name the folder (and come back in the answer).
    symlinkSync(secretFile, join(t.repoDir, '.adr-dir'))
    expect(await refusedAsLink({ format: 'madr', flavour: 'adr-tools' })).toContain('.adr-dir')
    const l4b = join(t.repoDir, '..', 'l4b.yml')
    writeFileSync(l4b, `project:\n  adrFolder: ${SECRET}\n`)
    symlinkSync(l4b, join(t.repoDir, '.log4brains.yml'))
    expect(await refusedAsLink({ format: 'madr', flavour: 'log4brains' })).toContain('.log4brains.yml')
    // Nothing was created in the repository under the target's text.
    expect(readdirSync(t.repoDir).filter((n) => n.includes('TOPSECRET'))).toEqual([])
    outsideUntouched()
  })

  it('still exports into a real folder, and into an outDir outside the repository the caller chose', async () => {
    mkdirSync(join(t.repoDir, 'docs', 'decisions'), { recursive: true })
    expect((await exportAs({ format: 'madr' })).files).toHaveLength(1)
    const mine = join(t.repoDir, '..', 'mine')
    mkdirSync(mine)
    const link = join(t.repoDir, '..', 'mine-link')
    symlinkSync(mine, link)
    // Outside the repository the folder is the caller's own choice, links and all.
    expect((await exportAs({ format: 'markdown', outDir: link })).files).toEqual([join(link, 'DECISIONS.md')])
    expect(readdirSync(mine)).toEqual(['DECISIONS.md'])
  })
})
