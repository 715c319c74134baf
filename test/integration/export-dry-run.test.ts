/**
 * The export box's server side: a dry run lists the files the export would write (the same code path, nothing
 * written), a folder of the repository is validated (folder_outside_repo for an absolute path, a `..` part or a way
 * out through a link), and `export.download` packs the same files into a zip, read back here with `unzip`.
 */
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { initRepo, makeCore, rejectsWith, type TestCore } from '../fixtures/core'

let t: TestCore
let ws: Workspace

beforeEach(async () => {
  t = makeCore()
  initRepo(t.repoDir)
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, name: 'Web Search', isolation: 'shared' })
  for (const title of ['Search timeout', 'Result cache'])
    await t.core.invoke('decisions.create', { workspaceId: ws.id, title, statement: `${title}: as agreed.` })
})
afterEach(async () => {
  await t.cleanup()
})

/** Every file under the repository but .git, as relative paths. */
function tree(dir = t.repoDir, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true })
    .filter((e) => e.name !== '.git')
    .flatMap((e) => (e.isDirectory() ? tree(dir, join(rel, e.name)) : [join(rel, e.name)]))
    .sort()
}

describe('export dry run', () => {
  it('lists the files the export then writes, writing nothing itself', async () => {
    const before = tree()
    const dry = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', dryRun: true })
    expect(tree()).toEqual(before)
    expect(existsSync(join(t.repoDir, 'docs'))).toBe(false)
    const dir = join(t.repoDir, 'docs', 'decisions')
    expect(dry).toEqual({
      format: 'madr',
      outDir: dir,
      folder: 'docs/decisions',
      files: [join(dir, '0001-search-timeout.md'), join(dir, '0002-result-cache.md')],
      changed: [join(dir, '0001-search-timeout.md'), join(dir, '0002-result-cache.md')],
      removed: [],
      dryRun: true,
    })
    const real = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
    expect({ ...real, dryRun: true }).toEqual(dry)
    expect(tree()).toEqual([...before, 'docs/decisions/0001-search-timeout.md', 'docs/decisions/0002-result-cache.md'])
    // Again: nothing would change now.
    const again = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', dryRun: true })
    expect(again.changed).toEqual([])
    expect(again.files).toEqual(dry.files)
  })

  it('takes the folder from the repository’s conventions, and a folder field relative to the repository', async () => {
    writeFileSync(join(t.repoDir, '.adr-dir'), 'architecture/adr\n')
    const conv = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', dryRun: true })
    expect(conv.folder).toBe('architecture/adr')
    const chosen = await t.core.invoke('export.decisionLog', {
      workspaceId: ws.id,
      format: 'markdown',
      folder: 'notes/log',
      dryRun: true,
    })
    expect(chosen).toMatchObject({ folder: 'notes/log', files: [join(t.repoDir, 'notes', 'log', 'DECISIONS.md')] })
    expect(existsSync(join(t.repoDir, 'notes'))).toBe(false)
    await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'markdown', folder: 'notes/log' })
    expect(readFileSync(join(t.repoDir, 'notes', 'log', 'DECISIONS.md'), 'utf8')).toContain(
      '# Decision log: Web Search',
    )
  })

  it('reports what the real export would refuse, without creating a folder', async () => {
    writeFileSync(join(t.repoDir, 'a-file'), 'x')
    const err = await rejectsWith(
      t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json', folder: 'a-file/out', dryRun: true }),
      'io_error',
    )
    expect(err.message).toContain('cannot create or use the folder')
  })
})

describe('the folder field', () => {
  it('is refused with folder_outside_repo when absolute, with a .. part or leading out through a link', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'concord-outside-'))
    try {
      symlinkSync(outside, join(t.repoDir, 'elsewhere'))
      for (const folder of [outside, '/etc', '..', 'docs/../..', 'docs/..', '..\\x', 'elsewhere', 'elsewhere/adr']) {
        for (const dryRun of [true, false]) {
          const err = await rejectsWith(
            t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', folder, dryRun }),
            'folder_outside_repo',
          )
          expect(err.message).toContain('folder:')
        }
        await rejectsWith(
          t.core.invoke('export.download', { workspaceId: ws.id, format: 'madr', folder }),
          'folder_outside_repo',
        )
      }
      expect(readdirSync(outside)).toEqual([])
      await rejectsWith(
        t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', folder: 'docs', outDir: 'docs' }),
        'invalid_params',
      )
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})

/** The JSON export's text but for when it was exported. */
const sameBut = (text: string) => text.replace(/"exportedAt": "[^"]*"/, '"exportedAt": "…"')

describe('export.download', () => {
  it('holds more than 65,535 files (a ZIP64 zip): 70,000 decisions, each listed by unzip', async () => {
    const { store } = t.core.harness.ctx(ws.id)
    const at = '2025-01-01T00:00:00.000Z'
    store.transaction(() => {
      for (let i = 0; i < 70_000; i++)
        store.decisions.insert({
          title: `Decision ${i}`,
          statement: `Statement ${i}.`,
          rationale: '',
          status: 'accepted',
          fingerprint: `fp-${i}`,
          source_message_id: null,
          supersedes: null,
          created_by: null,
          created_at: at,
        })
    })
    const dl = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'madr' })
    expect(dl.count).toBe(70_002)
    {
      const zip = join(t.dataDir, dl.url)
      const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
      const names = listed.trim().split('\n')
      expect(names).toHaveLength(70_002)
      expect(names.slice(0, 2)).toEqual([
        'docs/decisions/0001-search-timeout.md',
        'docs/decisions/0002-result-cache.md',
      ])
      expect(names[70_001]).toBe('docs/decisions/70002-decision-69999.md')
      expect(execFileSync('unzip', ['-p', zip, names[70_001]!], { encoding: 'utf8' })).toContain('Statement 69999.')
    }
  }, 120_000)

  it('numbers and names the ADR files as the export does, links across pages included, byte for byte', async () => {
    // Exported once, then the first decision renamed: its file keeps its number under a new name.
    await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
    const [first] = await t.core.invoke('decisions.list', { workspaceId: ws.id })
    await t.core.invoke('decisions.update', {
      decisionId: first!.id,
      expectedVersion: 1,
      title: 'Search deadline',
      reason: 'clearer',
    })
    // A numbered ADR Concord did not write: new decisions are numbered after it.
    writeFileSync(join(t.repoDir, 'docs', 'decisions', '0010-ours.md'), '# Ours\n')
    // adr-tools' lock, behind Concord's numbers: moved past them.
    mkdirSync(join(t.repoDir, 'doc', 'adr'), { recursive: true })
    writeFileSync(join(t.repoDir, 'doc', 'adr', '.adr-sequence.lock'), '3')
    // More than two pages (100) of decisions; links across pages, both ways.
    for (let i = 0; i < 230; i++)
      await t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: i === 150 ? 'Search deadline, replaced' : `Decision ${i} größe`,
        statement: `Statement ${i}.`,
        ...(i === 150 ? { supersedes: first!.id } : {}),
      })
    const all = await t.core.invoke('decisions.list', { workspaceId: ws.id })
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Decision 5, replaced',
      statement: 'Replaced.',
      supersedes: all[7]!.id,
    })

    for (const flavour of ['madr', 'adr-tools'] as const) {
      const dl = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'madr', flavour })
      const zip = join(t.dataDir, dl.url)
      const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n')
      const done = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', flavour })
      const files = done.files.map((f) => relative(t.repoDir, f))
      const lock = flavour === 'adr-tools' ? ['doc/adr/.adr-sequence.lock'] : []
      expect(listed).toEqual([...files, ...lock])
      expect(files[0]).toBe(
        flavour === 'madr' ? 'docs/decisions/0001-search-deadline.md' : 'doc/adr/0004-search-deadline.md',
      )
      // Every file's bytes, in order: unzip -p writes them one after another.
      expect(execFileSync('unzip', ['-p', zip], { encoding: 'utf8', maxBuffer: 64 << 20 })).toBe(
        listed.map((name) => readFileSync(join(t.repoDir, name), 'utf8')).join(''),
      )
      const text = (name: string) => execFileSync('unzip', ['-p', zip, name], { encoding: 'utf8' })
      if (flavour === 'madr') {
        expect(files[2]).toBe('docs/decisions/0011-decision-0-große.md')
        // The first decision's file names its successor, on a later page, by its number and file.
        expect(text(files[0]!)).toContain('0161-search-deadline-replaced.md')
        expect(text(files[152]!)).toContain('0001-search-deadline.md')
      } else expect(text(lock[0]!)).toBe('236')
    }
  }, 60_000)

  it('writes the JSON export in pieces, a page of decisions at a time, byte for byte the export’s file', async () => {
    const text = async () => {
      const dl = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'json' })
      const zip = join(t.dataDir, dl.url)
      execFileSync('unzip', ['-tq', zip])
      return execFileSync('unzip', ['-p', zip, 'concord-export.json'], { encoding: 'utf8', maxBuffer: 64 << 20 })
    }
    const written = async () => {
      await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'json' })
      return readFileSync(join(t.repoDir, 'concord-export.json'), 'utf8')
    }
    const ada = await t.core.invoke('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    // More than a page of decisions (100), with names that need escaping.
    for (let i = 0; i < 230; i++)
      await t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: `Decision ${i} "quoted" \\ größe`,
        statement: `Line one\nline two ${i}.`,
      })
    const [first] = await t.core.invoke('decisions.list', { workspaceId: ws.id })
    await t.core.invoke('decisions.update', {
      decisionId: first!.id,
      expectedVersion: 1,
      statement: 'Search timeout: 10 s.',
      reason: 'measured',
      actorId: ada.id,
    })
    const zipped = await text()
    expect(zipped).toContain('Decision 229')
    expect(sameBut(zipped)).toBe(sameBut(await written()))
  })

  it('writes DECISIONS.md in pieces, a page of decisions at a time, byte for byte the export’s file', async () => {
    const zipped = async (workspaceId = ws.id) => {
      const dl = await t.core.invoke('export.download', { workspaceId, format: 'markdown' })
      const zip = join(t.dataDir, dl.url)
      execFileSync('unzip', ['-tq', zip])
      expect(dl.count).toBe(1)
      return execFileSync('unzip', ['-p', zip, 'DECISIONS.md'], { encoding: 'utf8', maxBuffer: 64 << 20 })
    }
    const written = async (workspaceId = ws.id, repo = t.repoDir) => {
      await t.core.invoke('export.decisionLog', { workspaceId, format: 'markdown' })
      return readFileSync(join(repo, 'DECISIONS.md'), 'utf8')
    }
    const ada = await t.core.invoke('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    // More than two pages of decisions (100 each), one superseding another across pages, a revision, escaping.
    for (let i = 0; i < 230; i++)
      await t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: `Decision ${i} | "quoted" \\ größe`,
        statement: `Line one\nline two ${i}.`,
      })
    const [first] = await t.core.invoke('decisions.list', { workspaceId: ws.id })
    await t.core.invoke('decisions.update', {
      decisionId: first!.id,
      expectedVersion: 1,
      statement: 'Search timeout: 10 s.',
      reason: 'measured',
      actorId: ada.id,
    })
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout, again',
      statement: 'Give up after 12 s.',
      supersedes: first!.id,
    })
    const text = await zipped()
    expect(text).toContain('233 decisions.')
    expect(text).toContain('Decision 229')
    expect(text).toContain('**Status:** superseded by [D-233](#d-233)')
    expect(text).toBe(await written())

    const repo = mkdtempSync(join(tmpdir(), 'concord-empty-'))
    try {
      initRepo(repo)
      const empty = await t.core.invoke('workspaces.open', { repoPath: repo, name: 'Empty', isolation: 'shared' })
      const none = await zipped(empty.id)
      expect(none).toContain('No decisions recorded yet.')
      expect(none).toBe(await written(empty.id, repo))
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('refuses a DECISIONS.md in the repository that Concord did not write, as the export does', async () => {
    writeFileSync(join(t.repoDir, 'DECISIONS.md'), '# Our own decisions\n')
    for (const call of [
      t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'markdown' }),
      t.core.invoke('export.download', { workspaceId: ws.id, format: 'markdown' }),
    ])
      expect((await rejectsWith(call, 'invalid_params')).message).toContain('was not written by Concord')
    expect(readFileSync(join(t.repoDir, 'DECISIONS.md'), 'utf8')).toBe('# Our own decisions\n')
  })

  it('writes the JSON export of a workspace without decisions as the export does', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'concord-empty-'))
    try {
      initRepo(repo)
      const empty = await t.core.invoke('workspaces.open', { repoPath: repo, name: 'Empty', isolation: 'shared' })
      const dl = await t.core.invoke('export.download', { workspaceId: empty.id, format: 'json' })
      const zipped = execFileSync('unzip', ['-p', join(t.dataDir, dl.url), 'concord-export.json'], { encoding: 'utf8' })
      await t.core.invoke('export.decisionLog', { workspaceId: empty.id, format: 'json' })
      expect(zipped).toContain('"decisions": []')
      expect(sameBut(zipped)).toBe(sameBut(readFileSync(join(repo, 'concord-export.json'), 'utf8')))
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('is a zip of the files the export would write, at their paths in the repository, writing nothing', async () => {
    const before = tree()
    const dl = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'madr' })
    expect(tree()).toEqual(before)
    expect(dl.name).toBe('web-search-decisions-madr.zip')
    const entries = ['docs/decisions/0001-search-timeout.md', 'docs/decisions/0002-result-cache.md']
    expect(dl.count).toBe(2)
    // Written under the data folder, served at dl.url by the bridge.
    expect(dl.url).toMatch(/^\/downloads\/[0-9a-f]{32}\/web-search-decisions-madr\.zip$/)
    const zip = join(t.dataDir, dl.url)
    expect(statSync(zip).size).toBe(dl.size)
    {
      execFileSync('unzip', ['-tq', zip])
      const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n')
      expect(listed).toEqual(entries)
      // The same bytes the export then writes.
      await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
      for (const name of entries)
        expect(execFileSync('unzip', ['-p', zip, name], { encoding: 'utf8' })).toBe(
          readFileSync(join(t.repoDir, name), 'utf8'),
        )
    }
    const json = await t.core.invoke('export.download', { workspaceId: ws.id, format: 'json', folder: 'exports' })
    expect(json.count).toBe(2)
    expect(
      execFileSync('unzip', ['-Z1', join(t.dataDir, json.url)], { encoding: 'utf8' })
        .trim()
        .split('\n'),
    ).toEqual(['exports/concord-export.json', 'exports/concord-export.schema.json'])
  })
})
